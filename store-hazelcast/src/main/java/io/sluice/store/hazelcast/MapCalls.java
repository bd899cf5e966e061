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
import io.sluice.algorithms.grid.GridCalls;
import io.sluice.algorithms.grid.GridOperation;
import io.sluice.algorithms.grid.GridStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The calls of {@link HazelcastStore}'s {@link GridStore} to the owners of its map's keys: one
 * call per request to the key's owner, whose entry processor decides there.
 *
 * <p>On a member, {@link GridStore#tryAcquireAndWait} (the path of {@code RateLimiter.decide})
 * starts the invocation on the caller's thread and waits there with the store's timeout
 * ({@link io.sluice.api.StoreCapabilities#waitBound()}). A lone decision (no other waiting for its
 * key) waits for the invocation's own future, from Hazelcast's
 * {@code MapProxyImpl.executeOnKeyInternal}, and reads the answer on its own thread once the
 * answer wakes it, as a plain {@code executeOnKey} does. A batch (see
 * {@link GridStore#tryAcquireAndWait}) waits for a future that the thread receiving the
 * answer completes, in a callback it runs itself on that same invocation future, reading the
 * answer once: it wakes every decision of the batch. The callback has an executor that runs it
 * where it is called: not on {@code submitToKey}'s future, which wraps it in a
 * {@code DelegatingCompletableFuture} that hands every answer to Hazelcast's default
 * asynchronous executor, and that executor starts a new thread per task when the common pool
 * has one thread (two cores): measured 3x to 6x the p50 of {@code executeOnKey}. Starting the
 * invocation never blocks: a lost or unknown owner makes Hazelcast retry on its own threads.
 *
 * <p>A decision's stage ({@link GridStore#tryAcquire}, the path of {@code decideAsync}) starts
 * its invocation the same way, on a member, and the thread receiving the answer hands it to a
 * thread of the store's {@link GridCalls}, which completes the stage
 * ({@link GridCalls#startAndHandBack}): what the caller chains never runs on Hazelcast's
 * threads, and no thread of the store waits while the call is out.
 *
 * <p>On a client, before the map's proxy exists (creating it can block a client: it asks the
 * cluster), and for leases and give-backs, each call is a blocking {@code executeOnKey} on a
 * thread of the store's {@link GridCalls}, whose future the caller waits for or chains to.
 */
final class MapCalls implements GridStore.OnOwner, GridStore.StartOnOwner {

    private static final int WARM_UP_KEYS_TRIED = 1_000;

    private final HazelcastInstance instance;
    private final String mapName;
    private volatile @Nullable IMap<String, Object> map;

    MapCalls(HazelcastInstance instance, String mapName) {
        this.instance = instance;
        this.mapName = mapName;
    }

    @Override
    public long[] run(String key, GridOperation operation) {
        return map().executeOnKey(key, new ApplyLimits(operation));
    }

    /**
     * A key owned by each member that owns partitions (one key when the owners are not known
     * yet), for the store's warm-up ({@link GridStore#warmUp}): running the entry processor once
     * on each of them connects, creates the map's proxy and loads its classes there and here.
     */
    List<String> warmUpKeys() {
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
    @Override
    public @Nullable CompletableFuture<long[]> start(String key, GridOperation operation) {
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
    @Override
    public GridCalls.@Nullable Started<long[]> startAlone(String key, GridOperation operation) {
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
}
