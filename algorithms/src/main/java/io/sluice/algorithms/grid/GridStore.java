package io.sluice.algorithms.grid;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.instances.Heartbeat;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.InstanceCount;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.StoreUnavailableException;
import io.sluice.api.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Store} of a grid (Hazelcast, Ignite) whose entry processors decide on the key's
 * owner: each method builds its {@link GridOperation} on the caller (bad arguments fail there,
 * before anything is sent), runs it on the key's owner with the grid's blocking call on a thread
 * of its {@link GridCalls}, and reads the owner's answer. A grid's store supplies only that call
 * ({@link OnOwner}), and may supply one that starts without blocking ({@link StartOnOwner}), which
 * decisions then use, waited for or not.
 * Failures and timeouts become {@link StoreUnavailableException}s carrying the grid's exception.
 *
 * <p>The owner's clock decides (a test clock only stands in for it in tests); a decision waited
 * for lasts at most the timeout of its {@link GridCalls}. The store runs only the built-in
 * algorithms: the owners rebuild limits from the algorithms' ids.
 */
public final class GridStore implements Store, InstanceCount {

    /** One operation on the member that owns {@code key}: a blocking call that returns the processor's answer. */
    @FunctionalInterface
    public interface OnOwner {

        /** Runs {@code operation} on the owner of {@code key} (a store's {@code executeOnKey} or {@code invoke}). */
        long[] run(String key, GridOperation operation);
    }

    /**
     * One operation on the member that owns {@code key}, started on the caller's thread without
     * blocking it. Returns {@code null} when the store cannot start it so (say, before the map's
     * proxy exists): the caller then waits for a call on the pool instead.
     */
    @FunctionalInterface
    public interface StartOnOwner {

        /**
         * Starts {@code operation} on the owner of {@code key}; {@code null} when that could block.
         * The future completes on the thread that receives the answer (so do stages chained to
         * it without an executor), which so wakes every caller waiting for it.
         */
        @Nullable CompletableFuture<long[]> start(String key, GridOperation operation);

        /**
         * As {@link #start}, for an operation that only its caller waits for (a decision with no
         * other waiting for its key): by default {@link #start}'s future. A store may return a
         * wait on its cluster's own future, the answer read on the caller's thread.
         */
        default GridCalls.@Nullable Started<long[]> startAlone(String key, GridOperation operation) {
            CompletableFuture<long[]> started = start(key, operation);
            return started == null ? null : GridCalls.Started.of(started);
        }

        /**
         * Whether {@link #start} hands the operation to the sending thread of the store's
         * {@link GridCalls} ({@link GridCalls#send}) rather than starting it on the caller's
         * thread: that thread then also gathers a hot key's batches and sends them, so that no
         * caller hands a batch over to it (see {@link SameKeyDecisions}). By default not.
         */
        default boolean startsOnSendingThread() {
            return false;
        }
    }

    /**
     * A grid's map of the chunks of long sliding logs ({@link io.sluice.algorithms.LogChunks}),
     * whose entries live on the member that owns the key they belong to. A store given one
     * keeps each long sliding log as a bounded head in the key's value and its older entries
     * in chunks, so that an admission writes a bounded value (see docs/algorithms.md).
     */
    public interface ChunkCalls {

        /** The entries of the chunk {@code index} of {@code limit}'s log of {@code key} made at {@code birth}; {@code null} when absent. */
        CompletableFuture<long @Nullable []> read(String key, String limit, long birth, long index);

        /** Writes that chunk, to live {@code ttlMicros} (a written chunk never changes). */
        CompletableFuture<?> write(String key, String limit, long birth, long index, long[] entries, long ttlMicros);
    }

    /** A limit no request fits (cost 2 against a burst of 1): warming up with it writes nothing. */
    private static final Limit WARM_UP = Limit.of(Algorithms.TOKEN_BUCKET, 1, Duration.ofSeconds(1))
            .named("sluice-warm-up");

    private final String description;
    private final GridCalls calls;
    private final OnOwner onOwner;
    private final @Nullable TimeSource testClock;
    /** The owner's clock decides; a wait lasts at most the timeout of {@link #calls}. */
    private final StoreCapabilities capabilities;
    /** Announces this store to the others on the cluster; {@code null} when counting instances is off. */
    private final @Nullable Heartbeat heartbeat;
    /**
     * Starts a decision's call as the store can without blocking (with the chunks of long
     * sliding logs when it keeps them): on the caller's thread, on the sending thread of
     * {@link #calls}, or as a call on its pool.
     */
    private final SameKeyDecisions.Sender decisions;
    /** {@link #tryAcquireAndWait}'s calls, coalesced per key while one is out. */
    private final SameKeyDecisions sameKey;

    /**
     * A store whose calls are {@code onOwner}, made on {@code calls}, at the owners' times, or at
     * {@code testClock}'s when a test gave one; decisions start their calls with {@code start},
     * when given: {@link #tryAcquireAndWait} waits for it on the caller's thread, and
     * {@link #tryAcquire}'s stage is completed on a thread of {@code calls}. {@code heartbeat}, when
     * counting instances is on, is closed with the store; {@code description} is what
     * {@link #toString} says. With {@code chunks}, decisions keep long sliding logs as heads
     * and chunks ({@link ChunkCalls}), and only a decision (or batch) with a sliding-log limit is
     * sent with them; without, as whole logs.
     */
    public GridStore(String description, GridCalls calls, OnOwner onOwner, @Nullable StartOnOwner start,
                     @Nullable ChunkCalls chunks, @Nullable TimeSource testClock, @Nullable Heartbeat heartbeat) {
        this.description = description;
        this.calls = calls;
        this.onOwner = onOwner;
        this.testClock = testClock;
        this.capabilities = new StoreCapabilities(true, true, true, true, false, calls.timeout());
        this.heartbeat = heartbeat;
        ChunkedSends sends = chunks == null ? null : new ChunkedSends(chunks, System::nanoTime);
        this.decisions = new SameKeyDecisions.Sender() {
            @Override
            public CompletableFuture<long[]> start(String key, GridOperation operation) {
                return sends == null || !operation.slidingLog() ? startOne(key, operation)
                        : sends.send(key, operation, sent -> startOne(key, sent), sent -> run(key, sent));
            }

            @Override
            public GridCalls.Started<long[]> startAlone(String key, GridOperation operation) {
                return sends == null || !operation.slidingLog() ? startAloneOne(key, operation)
                        : sends.startAlone(key, operation, sent -> startAloneOne(key, sent), sent -> run(key, sent));
            }

            @Override
            public boolean startsOnSendingThread() {
                return start != null && start.startsOnSendingThread();
            }

            private GridCalls.Started<long[]> startAloneOne(String key, GridOperation operation) {
                GridCalls.Started<long[]> started = start == null ? null : start.startAlone(key, operation);
                return started != null ? started : GridCalls.Started.of(run(key, operation));
            }

            private CompletableFuture<long[]> startOne(String key, GridOperation operation) {
                CompletableFuture<long[]> started = start == null ? null : start.start(key, operation);
                return started != null ? started : run(key, operation);
            }
        };
        this.sameKey = new SameKeyDecisions(calls, decisions, SameKeyDecisions.GATHER);
    }

    /** The live stores of this map or cache at the last heartbeat, from memory; empty when not counting. */
    @Override
    public OptionalInt instances() {
        return heartbeat == null ? OptionalInt.empty() : heartbeat.instances();
    }

    @Override
    public StoreCapabilities capabilities() {
        return capabilities;
    }

    @Override
    public boolean supports(Algorithm algorithm) {
        // The owners rebuild limits from the algorithms' ids; they know only these.
        return Algorithms.isBuiltIn(algorithm);
    }

    /**
     * Started as {@link #tryAcquireAndWait}'s call is (without coalescing), the stage completed on
     * a thread of the store's {@link GridCalls} ({@link GridCalls#startAndHandBack}): what the
     * caller chains never runs on the grid's threads.
     */
    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        GridOperation operation;
        try {
            operation = GridOperation.decide(limits, cost, nowMicros());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return calls.startAndHandBack(() -> decisions.start(key, operation))
                .thenApply(reply -> GridReply.decode(reply, limits));
    }

    /**
     * Bounded by the timeout of the store's {@link GridCalls} ({@link GridCalls#deadline()}):
     * started on the caller's thread when the store can start it without blocking, else a call
     * on the pool that the caller waits for. While a call for {@code key}
     * is out from this store, the decision waits for it to end and then goes with the others
     * that waited, as one call decided on the owner in their order (see {@link SameKeyDecisions}).
     *
     * @throws StoreUnavailableException when the call fails or does not answer in time
     * @throws IllegalArgumentException as {@link GridOperation#decide}
     */
    @Override
    public Decision tryAcquireAndWait(String key, List<Limit> limits, long cost) {
        GridOperation operation = GridOperation.decide(limits, cost, nowMicros());
        return GridReply.decode(sameKey.decide(key, operation), limits);
    }

    @Override
    public CompletionStage<Lease> lease(String key, List<Limit> limits, long maxTokens) {
        GridOperation operation;
        try {
            operation = GridOperation.lease(limits, maxTokens, nowMicros());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return run(key, operation).thenApply(reply -> GridLease.decode(reply, limits));
    }

    @Override
    public CompletionStage<Void> giveBack(String key, List<Limit> limits, Lease lease, long unusedTokens) {
        GridOperation operation;
        try {
            operation = GridOperation.giveBack(limits, lease, unusedTokens, nowMicros());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (operation == null) {
            return CompletableFuture.completedFuture(null);
        }
        return run(key, operation).thenApply(reply -> null);
    }

    /**
     * Runs a decision no state admits, so nothing is written, on each of {@code keys} (a key
     * per owner: loading the processor's classes there and here), waiting at most
     * {@code patience} in all; the failure, if any, for the store's builder to report.
     */
    public @Nullable Throwable warmUp(List<String> keys, Duration patience) {
        GridOperation refused = GridOperation.decide(List.of(WARM_UP), 2, nowMicros());
        List<CompletableFuture<long[]>> warmUps = new ArrayList<>();
        for (String key : keys) {
            warmUps.add(calls.call(() -> onOwner.run(key, refused), patience));
        }
        try {
            for (CompletableFuture<long[]> warmUp : warmUps) {
                GridReply.decode(warmUp.join(), List.of(WARM_UP));
            }
            return null;
        } catch (RuntimeException e) {
            return e.getCause() != null ? e.getCause() : e;
        }
    }

    private CompletableFuture<long[]> run(String key, GridOperation operation) {
        return calls.call(() -> onOwner.run(key, operation));
    }

    private long nowMicros() {
        TimeSource clock = testClock;
        return clock != null ? clock.nowMicros() : GridRequest.MEMBER_CLOCK;
    }

    /** Stops counting instances, if on, and making calls ({@link GridCalls#close()}); the grid's instance stays up. */
    @Override
    public void close() {
        if (heartbeat != null) {
            heartbeat.close();
        }
        calls.close();
    }

    @Override
    public String toString() {
        return description;
    }
}
