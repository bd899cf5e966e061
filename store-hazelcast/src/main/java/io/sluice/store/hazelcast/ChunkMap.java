package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.sluice.algorithms.grid.GridCalls;
import io.sluice.algorithms.grid.GridStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The chunks of {@link HazelcastStore}'s long sliding logs: the {@code IMap} {@code <map>.chunks}
 * of {@link ChunkKey} to the chunk's entries, each chunk on the member that owns its client key
 * (and backed up as that map's configuration says). Reads and writes are blocking calls on a
 * thread of the store's {@link GridCalls}, bounded by its timeout; they are rare (a write per
 * 64 admissions of a long log, a read per some 80 decisions), and the map's proxy is created by
 * the first of them, so a map that never asks for a chunk (an {@code OBJECT} map, which keeps
 * whole logs in place) never creates it.
 *
 * <p>Under a test clock, chunks get no Hazelcast time to live (virtual time and Hazelcast's
 * wall-clock expiry would disagree), as the states do not.
 */
final class ChunkMap implements GridStore.ChunkCalls {

    private final HazelcastInstance instance;
    private final String name;
    private final GridCalls calls;
    private final boolean expires;
    private volatile @Nullable IMap<ChunkKey, long[]> map;

    ChunkMap(HazelcastInstance instance, String mapName, GridCalls calls, boolean expires) {
        this.instance = instance;
        this.name = mapName + ".chunks";
        this.calls = calls;
        this.expires = expires;
    }

    @Override
    public CompletableFuture<long @Nullable []> read(String key, String limit, long birth, long index) {
        ChunkKey chunk = new ChunkKey(key, limit, birth, index);
        return calls.call(() -> map().get(chunk));
    }

    @Override
    public CompletableFuture<?> write(String key, String limit, long birth, long index, long[] entries,
                                      long ttlMicros) {
        ChunkKey chunk = new ChunkKey(key, limit, birth, index);
        // 0: no time to live of Hazelcast's (a test clock's chunks live as long as the map).
        long ttlMillis = expires ? Math.max(1, (ttlMicros + 999) / 1_000) : 0;
        return calls.call(() -> {
            map().set(chunk, entries, ttlMillis, TimeUnit.MILLISECONDS);
            return chunk;
        });
    }

    private IMap<ChunkKey, long[]> map() {
        IMap<ChunkKey, long[]> proxy = map;
        if (proxy == null) {
            proxy = instance.getMap(name);
            map = proxy;
        }
        return proxy;
    }
}
