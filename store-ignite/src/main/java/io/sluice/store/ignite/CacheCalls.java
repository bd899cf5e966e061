package io.sluice.store.ignite;

import io.sluice.algorithms.grid.GridCalls;
import io.sluice.algorithms.grid.GridOperation;
import io.sluice.algorithms.grid.GridStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.ignite.Ignite;
import org.apache.ignite.IgniteCache;
import org.apache.ignite.cluster.ClusterNode;

/**
 * The calls of {@link IgniteStore}'s {@link GridStore} to the primaries of its cache of
 * {@code key -> KeyState.encode()}: one {@code invoke} per request, made on a thread of the
 * store's {@link GridCalls}.
 *
 * <p>A decision waited for ({@link GridStore#tryAcquireAndWait}, the path of
 * {@code RateLimiter.decide}) is sent with {@code invokeAsync} by the store's one sending thread
 * ({@link #start}, {@link GridCalls#send}; {@code invokeAsync} could block the caller, see
 * below), and its answer completes the caller's future on Ignite's thread that receives it
 * ({@code listenAsync} with a direct executor: Ignite's default runs listeners on the common
 * pool, one more thread hand-off): the caller is woken by the answer, as by a blocking
 * {@code invoke}, with one hand-off to the sending thread before, and without the stage a
 * caller's timeout would have to chain to. A decision's stage ({@link GridStore#tryAcquire}) is
 * sent the same way, and the answer handed to a thread of the pool, which completes the stage
 * ({@link GridCalls#startAndHandBack}); leases and give-backs are blocking {@code invoke}s on the
 * pool: what a caller chains never runs on Ignite's threads.
 *
 * <p>Why a blocking {@code invoke} on a thread of our own rather than {@code invokeAsync}:
 * while the primary of a key is being lost, {@code invokeAsync} blocks its caller (connecting
 * to the lost node, logging) for hundreds of milliseconds before it returns a future, so no
 * timeout started after it could bound the caller's wait.
 */
final class CacheCalls implements GridStore.OnOwner, GridStore.StartOnOwner {

    private static final int WARM_UP_KEYS_TRIED = 1_000;

    private final IgniteCache<String, byte[]> cache;
    private final GridCalls calls;

    /** The calls to {@code cache}'s primaries, sent on the threads of {@code calls}. */
    CacheCalls(IgniteCache<String, byte[]> cache, GridCalls calls) {
        this.cache = cache;
        this.calls = calls;
    }

    @Override
    public long[] run(String key, GridOperation operation) {
        return cache.invoke(key, new DecideProcessor(operation));
    }

    @Override
    public CompletableFuture<long[]> start(String key, GridOperation operation) {
        return calls.send(answer ->
                cache.invokeAsync(key, new DecideProcessor(operation)).listenAsync(sent -> {
                    try {
                        answer.complete(sent.get());
                    } catch (RuntimeException e) {
                        answer.completeExceptionally(e);
                    }
                }, Runnable::run));
    }

    /** {@link #start} hands every operation to the store's sending thread, which so also gathers a hot key's batches. */
    @Override
    public boolean startsOnSendingThread() {
        return true;
    }

    /**
     * A key whose primary is each server node, as far as the affinity knows, for the store's
     * warm-up ({@link GridStore#warmUp}): running the entry processor once on each of them loads
     * its classes there and here.
     */
    List<String> warmUpKeys(Ignite ignite) {
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
}
