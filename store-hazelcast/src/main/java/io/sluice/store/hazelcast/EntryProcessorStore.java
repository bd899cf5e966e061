package io.sluice.store.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.partition.Partition;
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
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
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
final class EntryProcessorStore implements Store, InstanceCount {

    /** Decisions use the owning member's clock, inside the entry processor. */
    private static final StoreCapabilities CAPABILITIES = new StoreCapabilities(true, true, true, true);

    private static final int WARM_UP_KEYS_TRIED = 1_000;

    private final HazelcastInstance instance;
    private final String mapName;
    private final GridOperations operations;
    private volatile @Nullable IMap<String, byte[]> map;
    /** Announces this store to the others on the cluster; {@code null} when counting instances is off. */
    private final @Nullable Heartbeat heartbeat;

    EntryProcessorStore(HazelcastInstance instance, String mapName, Duration timeout, int concurrency,
                        @Nullable TimeSource testClock, @Nullable Heartbeat heartbeat) {
        this.instance = instance;
        this.mapName = mapName;
        this.operations = new GridOperations(
                new GridCalls("the Hazelcast map '" + mapName + "'", timeout, concurrency),
                (key, operation) -> map().executeOnKey(key, new ApplyLimits(operation)), testClock);
        this.heartbeat = heartbeat;
    }

    /** The live stores of this map at the last heartbeat, from memory; empty when not counting. */
    @Override
    public OptionalInt instances() {
        return heartbeat == null ? OptionalInt.empty() : heartbeat.instances();
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
        return operations.tryAcquire(key, limits, cost);
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
        if (heartbeat != null) {
            heartbeat.close();
        }
        operations.close();
    }

    /**
     * Connects, creates the map's proxy and makes every member that owns partitions run the
     * entry processor once (loading its classes there and here), with a request no state
     * admits, so nothing is written. Waits at most {@code patience} in all; returns the
     * failure, if any, for the builder to report.
     */
    @Nullable Throwable warmUp(Duration patience) {
        return operations.warmUp(warmUpKeys(), patience);
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
        return "HazelcastStore[" + operations + "]";
    }
}
