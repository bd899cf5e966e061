package io.sluice.store.ignite;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.grid.GridCalls;
import io.sluice.algorithms.grid.GridOperations;
import io.sluice.api.Algorithm;
import io.sluice.algorithms.instances.Heartbeat;
import io.sluice.api.Decision;
import io.sluice.api.InstanceCount;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletionStage;
import org.apache.ignite.Ignite;
import org.apache.ignite.IgniteCache;
import org.apache.ignite.cluster.ClusterNode;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Store} on an Ignite cache of {@code key -> KeyState.encode()}: one {@code invoke}
 * per request, made on a thread of the store's {@link GridCalls}.
 *
 * <p>A decision waited for ({@link #tryAcquireAndWait}, the path of {@code RateLimiter.decide})
 * is sent by that thread with {@code invokeAsync}, and its answer completes the caller's future
 * on Ignite's thread that receives it ({@code listenAsync} with a direct executor: Ignite's
 * default runs listeners on the common pool, one more thread hand-off): the caller is woken by
 * the answer, as by a blocking {@code invoke}, with one hand-off to the pool before. Stages
 * ({@link #tryAcquire}, leases) still complete on the pool's thread, so that what a caller
 * chains never runs on Ignite's threads.
 *
 * <p>Why a blocking {@code invoke} on a thread of our own rather than {@code invokeAsync}:
 * while the primary of a key is being lost, {@code invokeAsync} blocks its caller (connecting
 * to the lost node, logging) for hundreds of milliseconds before it returns a future, so no
 * timeout started after it could bound the caller's wait.
 */
final class IgniteCacheStore implements Store, InstanceCount {

    private static final int WARM_UP_KEYS_TRIED = 1_000;

    private final IgniteCache<String, byte[]> cache;
    private final Duration timeout;
    private final GridOperations operations;
    /**
     * The primary node's clock decides (a test clock only stands in for it in tests); a
     * decision waited for lasts at most the timeout.
     */
    private final StoreCapabilities capabilities;
    /** Announces this store to the others on the cluster; {@code null} when counting instances is off. */
    private final @Nullable Heartbeat heartbeat;

    IgniteCacheStore(IgniteCache<String, byte[]> cache, Duration timeout, int concurrency,
                     @Nullable TimeSource testClock, @Nullable Heartbeat heartbeat) {
        this.cache = cache;
        this.timeout = timeout;
        GridCalls calls = new GridCalls("the Ignite cache '" + cache.getName() + "'", timeout, concurrency);
        this.operations = new GridOperations(calls,
                (key, operation) -> cache.invoke(key, new DecideProcessor(operation)),
                (key, operation) -> calls.<long[]>send(answer ->
                        cache.invokeAsync(key, new DecideProcessor(operation)).listenAsync(sent -> {
                            try {
                                answer.complete(sent.get());
                            } catch (RuntimeException e) {
                                answer.completeExceptionally(e);
                            }
                        }, Runnable::run)),
                testClock);
        this.capabilities = new StoreCapabilities(true, true, true, true, false, timeout);
        this.heartbeat = heartbeat;
    }

    /** The live stores of this cache at the last heartbeat, from memory; empty when not counting. */
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
        // The primary rebuilds limits from the algorithms' ids; it knows only these.
        return Algorithms.isBuiltIn(algorithm);
    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        return operations.tryAcquire(key, limits, cost);
    }

    /**
     * Waits on the caller's thread for a call that the store's sending thread sends with
     * {@code invokeAsync} (see the class comment: {@code invokeAsync} could block the caller)
     * and that Ignite's thread receiving the answer completes ({@link GridCalls#send}), without
     * the stage a caller's timeout would have to chain to.
     */
    @Override
    public Decision tryAcquireAndWait(String key, List<Limit> limits, long cost) {
        return operations.tryAcquireAndWait(key, limits, cost);
    }

    @Override
    public CompletionStage<Lease> lease(String key, List<Limit> limits, long maxTokens) {
        return operations.lease(key, limits, maxTokens);
    }

    @Override
    public CompletionStage<Void> giveBack(String key, List<Limit> limits, Lease lease, long unusedTokens) {
        return operations.giveBack(key, limits, lease, unusedTokens);
    }

    @Override
    public void close() {
        // The Ignite node belongs to the application; the store only stops using it.
        if (heartbeat != null) {
            heartbeat.close();
        }
        operations.close();
    }

    /**
     * Runs the entry processor once on every server that is primary for some key (loading
     * its classes there and here), with a request no state admits, so nothing is written.
     * Waits at most {@code patience} in all; returns the failure, if any, for the builder.
     */
    @Nullable Throwable warmUp(Ignite ignite, Duration patience) {
        return operations.warmUp(warmUpKeys(ignite), patience);
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

    @Override
    public String toString() {
        return "IgniteStore[cache " + cache.getName() + ", timeout " + timeout + "]";
    }
}
