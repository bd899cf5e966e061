package io.sluice.store.hazelcast;

import com.hazelcast.client.impl.clientside.HazelcastClientInstance;
import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.protocol.codec.MapExecuteOnKeyCodec;
import com.hazelcast.client.impl.proxy.ClientMapProxy;
import com.hazelcast.client.impl.spi.ClientContext;
import com.hazelcast.client.impl.spi.impl.ClientInvocation;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.internal.util.ThreadUtil;
import com.hazelcast.map.IMap;
import com.hazelcast.map.impl.proxy.MapProxyImpl;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The calls of {@link HazelcastStore}'s {@link GridStore} to the owners of its map's keys: one
 * call per request to the key's owner, whose entry processor decides there.
 *
 * <p>On a member and on a client alike, {@link GridStore#tryAcquireAndWait} (the path of
 * {@code RateLimiter.decide}) starts the invocation on the caller's thread and waits there with
 * the store's timeout ({@link io.sluice.api.StoreCapabilities#waitBound()}). A lone decision (no
 * other waiting for its key) waits for the invocation's own future, as a plain
 * {@code executeOnKey} does, and reads the answer on its own thread once the answer wakes it. A
 * batch (see {@link GridStore#tryAcquireAndWait}) waits for a future that the thread receiving
 * the answer completes, in a callback it runs itself on that same invocation future, reading
 * the answer once: it wakes every decision of the batch. The callback has an executor that runs
 * it where it is called: not on {@code submitToKey}'s future, which wraps it in a
 * {@code DelegatingCompletableFuture} (a {@code ClientDelegatingFuture} on a client) that hands
 * every answer to Hazelcast's default asynchronous executor, and that executor starts a new
 * thread per task when the common pool has one thread (two cores): measured 3x to 6x the p50
 * of {@code executeOnKey}. So the invocation is the one the map's proxy makes for
 * {@code executeOnKey}, reached through Hazelcast's internals: a member's
 * {@code MapProxyImpl.executeOnKeyInternal}, and on a client the same request
 * ({@code MapExecuteOnKeyCodec}) as a {@code ClientInvocation} on the key's partition. Starting
 * it never blocks: a lost or unknown owner, or a client that lost its connection, makes
 * Hazelcast retry on its own threads (a client that never had a partition table fails at once).
 *
 * <p>A decision's stage ({@link GridStore#tryAcquire}, the path of {@code decideAsync}) starts
 * its invocation the same way, and the thread receiving the answer hands it to a thread of the
 * store's {@link GridCalls}, which completes the stage ({@link GridCalls#startAndHandBack}): what
 * the caller chains never runs on Hazelcast's threads, and no thread of the store waits while
 * the call is out.
 *
 * <p>Before the map's proxy exists (creating it can block a client: it asks the cluster), and
 * for leases and give-backs, each call is a blocking {@code executeOnKey} on a thread of the
 * store's {@link GridCalls}, whose future the caller waits for or chains to.
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
     * {@code operation} started on the owner of {@code key} from the caller's thread, its answer
     * read by the thread that receives it (see the class comment); {@code null} before the map's
     * proxy exists.
     */
    @Override
    public @Nullable CompletableFuture<long[]> start(String key, GridOperation operation) {
        Invocation invocation = invoke(key, operation);
        if (invocation == null) {
            return null;
        }
        CompletableFuture<long[]> reply = new CompletableFuture<>();
        // Run by the thread that receives the answer (an executor that runs the callback where it
        // is called): it reads the answer once, however many decisions of a batch wait for it.
        invocation.answer.whenCompleteAsync((answer, failure) -> {
            if (failure != null) {
                reply.completeExceptionally(failure);
                return;
            }
            try {
                reply.complete(invocation.read(answer));
            } catch (RuntimeException e) {
                reply.completeExceptionally(e);
            }
        }, Runnable::run);
        return reply;
    }

    /**
     * {@code operation} of a lone decision started on the owner of {@code key} from the caller's
     * thread, waited for as {@code executeOnKey} waits: on the invocation's own future, the
     * answer read on the caller's thread once it wakes, with no callback and no future of ours
     * (see the class comment); {@code null} before the map's proxy exists.
     */
    @Override
    public GridCalls.@Nullable Started<long[]> startAlone(String key, GridOperation operation) {
        Invocation invocation = invoke(key, operation);
        if (invocation == null) {
            return null;
        }
        return invocation;
    }

    /**
     * The invocation of {@code operation} on the owner of {@code key}, as the map's proxy
     * invokes it for {@code executeOnKey} but without waiting; {@code null} before the proxy
     * exists, or on an instance that is neither a member nor a client as Hazelcast builds them.
     */
    private @Nullable Invocation invoke(String key, GridOperation operation) {
        IMap<String, Object> proxy = map;
        if (proxy instanceof MapProxyImpl<String, Object> member && instance instanceof SerializationServiceSupport support) {
            ApplyLimits processor = new ApplyLimits(operation);
            // As executeOnKey does: a processor run on this member (its owner) reads this member's clock.
            processor.setHazelcastInstance(instance);
            return new Invocation(member.executeOnKeyInternal(key, processor), Data.class::cast,
                    support.getSerializationService());
        }
        ClientContext context = proxy instanceof ClientMapProxy<String, Object> onClient ? onClient.getContext() : null;
        if (context != null && context.getHazelcastInstance() instanceof HazelcastClientInstance client) {
            InternalSerializationService serialization = context.getSerializationService();
            Data keyData = serialization.toData(key);
            ClientMessage request = MapExecuteOnKeyCodec.encodeRequest(mapName,
                    serialization.toData(new ApplyLimits(operation)), keyData, ThreadUtil.getThreadId());
            // Throws HazelcastClientOfflineException, a failed call, while the client has no partition table.
            int partition = context.getPartitionService().getPartitionId(keyData);
            return new Invocation(new ClientInvocation(client, request, mapName, partition).invoke(),
                    answer -> MapExecuteOnKeyCodec.decodeResponse((ClientMessage) answer), serialization);
        }
        return null;
    }

    /**
     * A started invocation: a member's future holds the processor's serialized answer, a
     * client's the reply message that carries it. Waited for ({@link #startAlone}), it reads the
     * answer on the waiting thread.
     */
    private record Invocation(CompletableFuture<?> answer, Function<Object, Data> data, SerializationService serialization)
            implements GridCalls.Started<long[]> {

        long[] read(Object answer) {
            return serialization.toObject(data.apply(answer));
        }

        @Override
        public long[] await(long timeoutNanos) throws InterruptedException, ExecutionException, TimeoutException {
            return read(answer.get(timeoutNanos, TimeUnit.NANOSECONDS));
        }
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
