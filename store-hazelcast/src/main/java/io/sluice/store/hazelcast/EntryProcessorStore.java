package io.sluice.store.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.map.IMap;
import com.hazelcast.map.impl.proxy.MapProxyImpl;
import com.hazelcast.spi.impl.InternalCompletableFuture;
import com.hazelcast.spi.impl.SerializationServiceSupport;
import com.hazelcast.partition.Partition;
import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.grid.GridCalls;
import io.sluice.algorithms.grid.GridOperation;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The store behind {@link HazelcastStore}: one call per request to the key's owner, whose
 * entry processor decides there; failures and timeouts become
 * {@link io.sluice.api.StoreUnavailableException}s carrying Hazelcast's exception.
 *
 * <p>On a member, {@link #tryAcquireAndWait} (the path of {@code RateLimiter.decide}) starts
 * the invocation on the caller's thread and waits there with the store's timeout
 * ({@link StoreCapabilities#waitBound()}). A lone decision (no other waiting for its key)
 * waits for the invocation's own future, from Hazelcast's
 * {@code MapProxyImpl.executeOnKeyInternal}, and reads the answer on its own thread once the
 * answer wakes it, as a plain {@code executeOnKey} does. A batch (see
 * {@link GridOperations#tryAcquireAndWait}) waits for a future that the thread receiving the
 * answer completes, in a callback it runs itself on that same invocation future, reading the
 * answer once: it wakes every decision of the batch. The callback has an executor that runs it
 * where it is called: not on {@code submitToKey}'s future, which wraps it in a
 * {@code DelegatingCompletableFuture} that hands every answer to Hazelcast's default
 * asynchronous executor, and that executor starts a new thread per task when the common pool
 * has one thread (two cores): measured 3x to 6x the p50 of {@code executeOnKey}. Starting the
 * invocation never blocks: a lost or unknown owner makes Hazelcast retry on its own threads.
 *
 * <p>On a client, before the map's proxy exists (creating it can block a client: it asks the
 * cluster), and for the stages of {@link #tryAcquire}, leases and give-backs, each call is a
 * blocking {@code executeOnKey} on a thread of the store's {@link GridCalls}, whose future the
 * caller waits for or chains to.
 */
final class EntryProcessorStore implements Store, InstanceCount {

    private static final int WARM_UP_KEYS_TRIED = 1_000;

    private final HazelcastInstance instance;
    private final String mapName;
    private final GridOperations operations;
    /** Decisions use the owning member's clock, inside the entry processor; a wait lasts at most the timeout. */
    private final StoreCapabilities capabilities;
    private volatile @Nullable IMap<String, Object> map;
    /** Announces this store to the others on the cluster; {@code null} when counting instances is off. */
    private final @Nullable Heartbeat heartbeat;

    EntryProcessorStore(HazelcastInstance instance, String mapName, Duration timeout, int concurrency,
                        @Nullable TimeSource testClock, @Nullable Heartbeat heartbeat) {
        this.instance = instance;
        this.mapName = mapName;
        this.operations = new GridOperations(
                new GridCalls("the Hazelcast map '" + mapName + "'", timeout, concurrency),
                (key, operation) -> map().executeOnKey(key, new ApplyLimits(operation)),
                new GridOperations.StartOnOwner() {
                    @Override
                    public @Nullable CompletableFuture<long[]> start(String key, GridOperation operation) {
                        return startOnMember(key, operation);
                    }

                    @Override
                    public GridCalls.@Nullable Started<long[]> startAlone(String key, GridOperation operation) {
                        return startAloneOnMember(key, operation);
                    }
                }, testClock);
        this.capabilities = new StoreCapabilities(true, true, true, true, false, timeout);
        this.heartbeat = heartbeat;
    }

    /** The live stores of this map at the last heartbeat, from memory; empty when not counting. */
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
        // The members rebuild limits from the algorithms' ids; they know only these.
        return Algorithms.isBuiltIn(algorithm);
    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        return operations.tryAcquire(key, limits, cost);
    }

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
     * {@code operation} started on the owner of {@code key} from a member's thread, its answer
     * read by the thread that receives it (see the class comment); {@code null} on a client or before the
     * map's proxy exists.
     */
    private @Nullable CompletableFuture<long[]> startOnMember(String key, GridOperation operation) {
        InternalCompletableFuture<Data> answer = invokeOnMember(key, operation);
        if (answer == null) {
            return null;
        }
        SerializationService serialization = ((SerializationServiceSupport) instance).getSerializationService();
        CompletableFuture<long[]> reply = new CompletableFuture<>();
        // Run by the thread that receives the answer (an executor that runs the callback where it
        // is called): it reads the answer once, however many decisions of a batch wait for it.
        answer.whenCompleteAsync((data, failure) -> {
            if (failure != null) {
                reply.completeExceptionally(failure);
                return;
            }
            try {
                reply.complete(serialization.toObject(data));
            } catch (RuntimeException e) {
                reply.completeExceptionally(e);
            }
        }, Runnable::run);
        return reply;
    }

    /**
     * {@code operation} of a lone decision started on the owner of {@code key} from a member's
     * thread, waited for as {@code executeOnKey} waits: on the invocation's own future, the
     * answer read on the caller's thread once it wakes, with no callback and no future of ours
     * (see the class comment); {@code null} on a client or before the map's proxy exists.
     */
    private GridCalls.@Nullable Started<long[]> startAloneOnMember(String key, GridOperation operation) {
        InternalCompletableFuture<Data> answer = invokeOnMember(key, operation);
        if (answer == null) {
            return null;
        }
        SerializationService serialization = ((SerializationServiceSupport) instance).getSerializationService();
        return timeoutNanos -> serialization.toObject(answer.get(timeoutNanos, TimeUnit.NANOSECONDS));
    }

    /** The invocation of {@code operation} on the owner of {@code key}; {@code null} on a client or before the map's proxy exists. */
    private @Nullable InternalCompletableFuture<Data> invokeOnMember(String key, GridOperation operation) {
        if (!(map instanceof MapProxyImpl<String, Object> member) || !(instance instanceof SerializationServiceSupport)) {
            return null;
        }
        ApplyLimits processor = new ApplyLimits(operation);
        // As executeOnKey does: a processor run on this member (its owner) reads this member's clock.
        processor.setHazelcastInstance(instance);
        return member.executeOnKeyInternal(key, processor);
    }

    /**
     * The map's proxy, created on first use: a client creates it on the cluster, so a store
     * built while the cluster is unreachable works once it is back.
     */
    private IMap<String, Object> map() {
        IMap<String, Object> proxy = map;
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
