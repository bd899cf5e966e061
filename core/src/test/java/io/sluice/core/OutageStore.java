package io.sluice.core;

import io.sluice.algorithms.grid.GridCalls;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.InstanceCount;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A real store that can be taken down: while down, every call fails at once, as a store's
 * does when its server refuses connections; while hung, calls never answer, as when the
 * server is unreachable. Counts the calls that reach it, and tells the number of instances
 * once given one, as a store that sees its clients can. Given a wait bound, it waits for its
 * own answer in {@link #tryAcquireAndWait} with that timeout ({@link GridCalls#await}, as the
 * grid stores do), and says so in its capabilities.
 */
final class OutageStore implements Store, InstanceCount {

    enum Mode { UP, DOWN, HUNG }

    private final Store real;
    private final Duration waitBound;
    private final @Nullable GridCalls waits;
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong waited = new AtomicLong();
    private volatile Mode mode = Mode.UP;
    private volatile boolean holdLeases;
    /** Lease calls held while {@link #holdLeases}: each leases from the real store when answered. */
    private final List<Runnable> heldLeases = new ArrayList<>();
    private volatile OptionalInt instances = OptionalInt.empty();

    OutageStore(Store real) {
        this(real, Duration.ZERO);
    }

    /** A store that bounds its own wait by {@code waitBound} (none when zero). */
    OutageStore(Store real, Duration waitBound) {
        this.real = real;
        this.waitBound = waitBound;
        this.waits = waitBound.isZero() ? null : new GridCalls("the outage store", waitBound, 1);
    }

    void set(Mode mode) {
        this.mode = mode;
    }

    /** While on, lease calls (when up) answer only at {@link #answerHeldLeases}, as a remote store's later reply. */
    void holdLeases(boolean hold) {
        this.holdLeases = hold;
    }

    /** Answers every lease call held so far; how many there were. */
    int answerHeldLeases() {
        List<Runnable> answers;
        synchronized (heldLeases) {
            answers = new ArrayList<>(heldLeases);
            heldLeases.clear();
        }
        answers.forEach(Runnable::run);
        return answers.size();
    }

    void tellInstances(int instances) {
        this.instances = OptionalInt.of(instances);
    }

    @Override
    public OptionalInt instances() {
        return instances;
    }

    long calls() {
        return calls.get();
    }

    /** How many calls came through {@link #tryAcquireAndWait}. */
    long waited() {
        return waited.get();
    }

    @Override
    public Decision tryAcquireAndWait(String key, List<Limit> limits, long cost) {
        waited.incrementAndGet();
        GridCalls bounded = waits;
        return bounded == null ? Store.super.tryAcquireAndWait(key, limits, cost)
                : bounded.await(() -> GridCalls.Started.of(tryAcquire(key, limits, cost).toCompletableFuture()));
    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        CompletionStage<Decision> outage = outage();
        return outage != null ? outage : real.tryAcquire(key, limits, cost);
    }

    @Override
    public CompletionStage<Lease> lease(String key, List<Limit> limits, long maxTokens) {
        CompletionStage<Lease> outage = outage();
        if (outage != null) {
            return outage;
        }
        if (holdLeases) {
            CompletableFuture<Lease> later = new CompletableFuture<>();
            synchronized (heldLeases) {
                heldLeases.add(() -> real.lease(key, limits, maxTokens).whenComplete((lease, failure) -> {
                    if (failure != null) {
                        later.completeExceptionally(failure);
                    } else {
                        later.complete(lease);
                    }
                }));
            }
            return later;
        }
        return real.lease(key, limits, maxTokens);
    }

    @Override
    public CompletionStage<Void> giveBack(String key, List<Limit> limits, Lease lease, long unusedTokens) {
        CompletionStage<Void> outage = outage();
        return outage != null ? outage : real.giveBack(key, limits, lease, unusedTokens);
    }

    /** Counts a call; while down, its failure at once, while hung, a stage that never completes; {@code null} while up. */
    private <T> @Nullable CompletionStage<T> outage() {
        calls.incrementAndGet();
        switch (mode) {
            case DOWN:
                return CompletableFuture.failedFuture(new StoreUnavailableException("connection refused"));
            case HUNG:
                return new CompletableFuture<>();
            default:
                return null;
        }
    }

    /** The real store's, except that this one can be down or hung: it never decides in process. */
    @Override
    public StoreCapabilities capabilities() {
        StoreCapabilities capabilities = real.capabilities();
        return new StoreCapabilities(capabilities.serverClock(), capabilities.atomicMultiLimit(),
                capabilities.expiry(), capabilities.leasing(), false, waitBound);
    }

    @Override
    public boolean supports(Algorithm algorithm) {
        return real.supports(algorithm);
    }

    @Override
    public void close() {
        if (waits != null) {
            waits.close();
        }
        real.close();
    }
}
