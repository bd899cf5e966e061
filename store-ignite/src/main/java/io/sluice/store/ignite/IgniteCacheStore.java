package io.sluice.store.ignite;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.grid.GridCalls;
import io.sluice.algorithms.grid.GridLease;
import io.sluice.algorithms.grid.GridOperation;
import io.sluice.algorithms.grid.GridReply;
import io.sluice.algorithms.grid.GridRequest;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.ignite.Ignite;
import org.apache.ignite.IgniteCache;
import org.apache.ignite.cluster.ClusterNode;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Store} on an Ignite cache of {@code key -> KeyState.encode()}: one {@code invoke}
 * per request, made on a thread of the store's {@link GridCalls}.
 *
 * <p>Why a blocking {@code invoke} on a thread of our own rather than {@code invokeAsync}:
 * while the primary of a key is being lost, {@code invokeAsync} blocks its caller (connecting
 * to the lost node, logging) for hundreds of milliseconds before it returns a future, so no
 * timeout started after it could bound the caller's wait.
 */
final class IgniteCacheStore implements Store {

    /** The primary node's clock decides; a test clock only stands in for it in tests. */
    private static final StoreCapabilities CAPABILITIES = new StoreCapabilities(true, true, true, true);

    /** A limit no request fits (cost 2 against a burst of 1): warming up with it writes nothing. */
    private static final Limit WARM_UP = Limit.of(Algorithms.TOKEN_BUCKET, 1, Duration.ofSeconds(1))
            .named("sluice-warm-up");
    private static final int WARM_UP_KEYS_TRIED = 1_000;

    private final IgniteCache<String, byte[]> cache;
    private final Duration timeout;
    private final @Nullable TimeSource testClock;
    private final GridCalls calls;

    IgniteCacheStore(IgniteCache<String, byte[]> cache, Duration timeout, int concurrency,
                     @Nullable TimeSource testClock) {
        this.cache = cache;
        this.timeout = timeout;
        this.testClock = testClock;
        this.calls = new GridCalls("the Ignite cache '" + cache.getName() + "'", timeout, concurrency);
    }

    @Override
    public StoreCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public boolean supports(Algorithm algorithm) {
        // The primary rebuilds limits from the algorithms' ids; it knows only these.
        return Algorithms.isBuiltIn(algorithm);
    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        GridOperation operation;
        try {
            operation = GridOperation.decide(limits, cost, fixedNowMicros());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return run(key, operation).thenApply(reply -> GridReply.decode(reply, limits));
    }

    @Override
    public CompletionStage<Lease> lease(String key, List<Limit> limits, long maxTokens) {
        GridOperation operation;
        try {
            operation = GridOperation.lease(limits, maxTokens, fixedNowMicros());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return run(key, operation).thenApply(reply -> GridLease.decode(reply, limits));
    }

    @Override
    public CompletionStage<Void> giveBack(String key, List<Limit> limits, Lease lease, long unusedTokens) {
        GridOperation operation;
        try {
            operation = GridOperation.giveBack(limits, lease, unusedTokens, fixedNowMicros());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (operation == null) {
            return CompletableFuture.completedFuture(null);
        }
        return run(key, operation).thenApply(reply -> null);
    }

    private CompletableFuture<long[]> run(String key, GridOperation operation) {
        DecideProcessor processor = new DecideProcessor(operation);
        return calls.call(() -> cache.invoke(key, processor));
    }

    @Override
    public void close() {
        // The Ignite node belongs to the application; the store only stops using it.
        calls.close();
    }

    /**
     * Runs the entry processor once on every server that is primary for some key (loading
     * its classes there and here), with a request no state admits, so nothing is written.
     * Waits at most {@code patience} in all; returns the failure, if any, for the builder.
     */
    @Nullable Throwable warmUp(Ignite ignite, Duration patience) {
        List<CompletableFuture<long[]>> warmUps = new ArrayList<>();
        GridOperation refused = GridOperation.decide(List.of(WARM_UP), 2, fixedNowMicros());
        for (String key : warmUpKeys(ignite)) {
            DecideProcessor processor = new DecideProcessor(refused);
            warmUps.add(calls.call(() -> cache.invoke(key, processor), patience));
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

    /** A key whose primary is each server node, as far as the affinity knows. */
    private List<String> warmUpKeys(Ignite ignite) {
        List<String> keys = new ArrayList<>();
        List<ClusterNode> primaries = new ArrayList<>();
        int servers = ignite.cluster().forServers().nodes().size();
        for (int i = 0; i < WARM_UP_KEYS_TRIED && primaries.size() < servers; i++) {
            String key = "sluice-warm-up-" + i;
            ClusterNode primary = ignite.affinity(cache.getName()).mapKeyToNode(key);
            if (primary != null && !primaries.contains(primary)) {
                primaries.add(primary);
                keys.add(key);
            }
        }
        if (keys.isEmpty()) {
            keys.add("sluice-warm-up-0");
        }
        return keys;
    }

    private long fixedNowMicros() {
        TimeSource clock = testClock;
        return clock != null ? clock.nowMicros() : GridRequest.MEMBER_CLOCK;
    }

    @Override
    public String toString() {
        return "IgniteStore[cache " + cache.getName() + ", timeout " + timeout + "]";
    }
}
