package io.sluice.store.hazelcast;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.partition.PartitionAware;
import java.io.IOException;
import java.util.Objects;

/**
 * The key of one chunk of a long sliding log in the chunks' map ({@link ChunkMap}): the client
 * key, the limit, the log's birth and the chunk's index. Partitioned by the client key, so that
 * a chunk lives on the member that owns the head it belongs to. A client key may hold any
 * character, so no separator inside one string would be safe: the fields stay apart.
 *
 * <p>Type {@link ProcessorFactory#CHUNK_KEY}: only a store of a version that knows it writes one.
 */
final class ChunkKey implements PartitionAware<String>, IdentifiedDataSerializable {

    private String key;
    private String limit;
    private long birth;
    private long index;

    /** For deserialization on a member. */
    ChunkKey() {
        this.key = "";
        this.limit = "";
    }

    ChunkKey(String key, String limit, long birth, long index) {
        this.key = key;
        this.limit = limit;
        this.birth = birth;
        this.index = index;
    }

    @Override
    public String getPartitionKey() {
        return key;
    }

    @Override
    public int getFactoryId() {
        return ProcessorFactory.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return ProcessorFactory.CHUNK_KEY;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeString(key);
        out.writeString(limit);
        out.writeLong(birth);
        out.writeLong(index);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        String readKey = in.readString();
        String readLimit = in.readString();
        if (readKey == null || readLimit == null) {
            throw new IOException("a chunk's key without its client key or limit");
        }
        key = readKey;
        limit = readLimit;
        birth = in.readLong();
        index = in.readLong();
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
