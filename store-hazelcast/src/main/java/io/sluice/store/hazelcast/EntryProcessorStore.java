package io.sluice.store.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.partition.Partition;
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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The store behind {@link HazelcastStore}: one {@code executeOnKey} per request, made on a
 * thread of the store's {@link GridCalls}, whose entry processor decides on the key's owner;
 * failures and timeouts become {@link io.sluice.api.StoreUnavailableException}s carrying
 * Hazelcast's exception.
 *
 * <p>Why a blocking call on a thread of our own rather than {@code submitToKey}: on a member,
 * the future {@code submitToKey} returns completes on Hazelcast's default asynchronous
 * executor, which on two cores (a common pool of one thread) starts a new thread for every
 * answer; a blocking {@code executeOnKey} is woken by the thread that received the answer.
 */
final class EntryProcessorStore implements Store {

    /** Decisions use the owning member's clock, inside the entry processor. */
    private static final StoreCapabilities CAPABILITIES = new StoreCapabilities(true, true, true, true);

    /** A limit no request fits (cost 2 against a burst of 1): warming up with it writes nothing. */
    private static final Limit WARM_UP = Limit.of(Algorithms.TOKEN_BUCKET, 1, Duration.ofSeconds(1))
            .named("sluice-warm-up");
    private static final int WARM_UP_KEYS_TRIED = 1_000;

    private final HazelcastInstance instance;
    private final String mapName;
    private final @Nullable TimeSource testClock;
    private final GridCalls calls;
    private volatile @Nullable IMap<String, byte[]> map;

    EntryProcessorStore(HazelcastInstance instance, String mapName, Duration timeout, int concurrency,
                        @Nullable TimeSource testClock) {
        this.instance = instance;
        this.mapName = mapName;
        this.testClock = testClock;
        this.calls = new GridCalls("the Hazelcast map '" + mapName + "'", timeout, concurrency);
    }

    @Override
    public StoreCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public boolean supports(Algorithm algorithm) {
        // The members rebuild limits from the algorithms' ids; they know only these.
        return Algorithms.isBuiltIn(algorithm);
    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        GridOperation operation;
        try {
            operation = GridOperation.decide(limits, cost, now());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return run(key, operation).thenApply(reply -> GridReply.decode(reply, limits));
    }

    @Override
    public CompletionStage<Lease> lease(String key, List<Limit> limits, long maxTokens) {
        GridOperation operation;
        try {
            operation = GridOperation.lease(limits, maxTokens, now());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return run(key, operation).thenApply(reply -> GridLease.decode(reply, limits));
    }

    @Override
    public CompletionStage<Void> giveBack(String key, List<Limit> limits, Lease lease, long unusedTokens) {
        GridOperation operation;
        try {
            operation = GridOperation.giveBack(limits, lease, unusedTokens, now());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (operation == null) {
            return CompletableFuture.completedFuture(null);
        }
        return run(key, operation).thenApply(reply -> null);
    }

    private CompletableFuture<long[]> run(String key, GridOperation operation) {
        ApplyLimits processor = new ApplyLimits(operation);
        return calls.call(() -> map().executeOnKey(key, processor));
    }

    @Override
    public void close() {
        calls.close();
    }

    /**
     * Connects, creates the map's proxy and makes every member that owns partitions run the
     * entry processor once (loading its classes there and here), with a request no state
     * admits, so nothing is written. Waits at most {@code patience} in all; returns the
     * failure, if any, for the builder to report.
     */
    @Nullable Throwable warmUp(Duration patience) {
        List<CompletableFuture<long[]>> warmUps = new ArrayList<>();
        GridOperation refused = GridOperation.decide(List.of(WARM_UP), 2, now());
        for (String key : warmUpKeys()) {
            ApplyLimits processor = new ApplyLimits(refused);
            warmUps.add(calls.call(() -> map().executeOnKey(key, processor), patience));
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

    /** A key owned by each member that owns partitions (one key when the owners are not known yet). */
    private List<String> warmUpKeys() {
        List<String> keys = new ArrayList<>();
        Set<Member> owners = new HashSet<>();
        try {
            int members = instance.getCluster().getMembers().size();
            for (int i = 0; i < WARM_UP_KEYS_TRIED && owners.size() < members; i++) {
                String key = "sluice-warm-up-" + i;
                Partition partition = instance.getPartitionService().getPartition(key);
                Member owner = partition.getOwner();
                if (owner != null && owners.add(owner)) {
                    keys.add(key);
                }
            }
        } catch (RuntimeException e) {
            // A client not connected yet knows no members; one key still warms this side up.
        }
        if (keys.isEmpty()) {
            keys.add("sluice-warm-up-0");
        }
        return keys;
    }

    private long now() {
        TimeSource clock = testClock;
        return clock != null ? clock.nowMicros() : GridRequest.MEMBER_CLOCK;
    }

    /**
     * The map's proxy, created on first use: a client creates it on the cluster, so a store
     * built while the cluster is unreachable works once it is back.
     */
    private IMap<String, byte[]> map() {
        IMap<String, byte[]> proxy = map;
        if (proxy == null) {
            proxy = instance.getMap(mapName);
            map = proxy;
        }
        return proxy;
    }

    @Override
    public String toString() {
        return "HazelcastStore[" + calls + "]";
    }
}
