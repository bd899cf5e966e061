package io.sluice.store.ignite;

import java.util.Objects;
import org.apache.ignite.cache.affinity.AffinityKeyMapped;

/**
 * The key of one chunk of a long sliding log in the chunks' cache ({@link ChunkCache}): the
 * client key, the limit, the log's birth and the chunk's index. Its affinity key is the client
 * key, so a chunk lives on the primary of the head it belongs to. A client key may hold any
 * character, so no separator inside one string would be safe: the fields stay apart.
 */
final class ChunkKey {

    @AffinityKeyMapped
    private final String key;
    private final String limit;
    private final long birth;
    private final long index;

    ChunkKey(String key, String limit, long birth, long index) {
        this.key = key;
        this.limit = limit;
        this.birth = birth;
        this.index = index;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ChunkKey that && key.equals(that.key) && limit.equals(that.limit)
                && birth == that.birth && index == that.index;
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, limit, birth, index);
    }

    @Override
    public String toString() {
        return "ChunkKey[" + key + ", " + limit + ", " + birth + ", " + index + "]";
    }
}
