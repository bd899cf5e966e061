package io.sluice.store.ignite;

import io.sluice.algorithms.grid.GridCalls;
import io.sluice.algorithms.grid.GridStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import org.apache.ignite.IgniteCache;
import org.jspecify.annotations.Nullable;

/**
 * The chunks of {@link IgniteStore}'s long sliding logs: the cache {@code <cache>.chunks} of
 * {@link ChunkKey} to the chunk's entries, each on the primary of its client key, each entry
 * with an expiry of its own (one period of its limit from its write). Reads and writes are
 * blocking calls on a thread of the store's {@link GridCalls}, bounded by its timeout, for the
 * reason {@link CacheCalls} gives; they are rare (a write per 64 admissions of a long log, a
 * read per some 80 decisions).
 *
 * <p>Under a test clock, chunks do not expire (a test's clock has no relation to the real time
 * Ignite expires by), as the states do not.
 */
final class ChunkCache implements GridStore.ChunkCalls {

    private final IgniteCache<ChunkKey, long[]> cache;
    private final GridCalls calls;
    private final boolean expires;

    ChunkCache(IgniteCache<ChunkKey, long[]> cache, GridCalls calls, boolean expires) {
        this.cache = cache;
        this.calls = calls;
        this.expires = expires;
    }

    @Override
    public CompletableFuture<long @Nullable []> read(String key, String limit, long birth, long index) {
        ChunkKey chunk = new ChunkKey(key, limit, birth, index);
        return calls.call(() -> cache.get(chunk));
    }

    @Override
    public CompletableFuture<?> write(String key, String limit, long birth, long index, long[] entries,
                                      long ttlMicros) {
        ChunkKey chunk = new ChunkKey(key, limit, birth, index);
        IgniteCache<ChunkKey, long[]> expiring = expires
                ? cache.withExpiryPolicy(new CreatedExpiryPolicy(
                        new Duration(TimeUnit.MILLISECONDS, Math.max(1, (ttlMicros + 999) / 1_000))))
                : cache;
        return calls.call(() -> {
            expiring.put(chunk, entries);
            return chunk;
        });
    }
}
