package io.sluice.jmh;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The floor of a Hazelcast decision: a minimal token bucket ({@code [tokens, last refill]} as
 * a {@code long[]}) in a plain entry processor on the key's owner, with a TTL. The cost of
 * one call to the owner, against which Sluice's and Bucket4j's processors are read; not a peer.
 *
 * <p>Hazelcast keeps an entry's time to live in whole seconds, truncated: a TTL given in
 * milliseconds below a second became none, the entry went at once, and the floor admitted
 * every request (a hot key measured writes, not denials). The TTL is so rounded up to whole
 * seconds, with one more, as Sluice's store does.
 *
 * <p>Backups get this processor only when it wrote (Hazelcast's default backup processor is
 * the processor itself, which sent a backup for every denial too, a second packet per call
 * that neither Sluice nor Bucket4j sends). A backup runs it with the backup's clock: a floor
 * need not store exactly the owner's state.
 */
final class TokenBucketFloorProcessor implements EntryProcessor<String, long[], Boolean>, IdentifiedDataSerializable {

    static final int FACTORY_ID = 0x51CE;
    private static final int CLASS_ID = 1;
    private static final long serialVersionUID = 1L;
    private static final long MICROS_PER_SECOND = 1_000_000;

    private long capacity;
    private long microsPerToken;
    private long cost;
    /** Whether {@link #process} wrote, asked by Hazelcast afterwards on the same instance. */
    private transient boolean wrote;

    TokenBucketFloorProcessor(long capacity, long microsPerToken, long cost) {
        this.capacity = capacity;
        this.microsPerToken = microsPerToken;
        this.cost = cost;
    }

    private TokenBucketFloorProcessor() {
    }

    @Override
    public Boolean process(Map.Entry<String, long[]> entry) {
        long now = System.currentTimeMillis() * 1_000;
        long[] state = entry.getValue();
        long tokens = state == null ? capacity : state[0];
        long last = state == null ? now : state[1];
        if (now > last) {
            long refill = (now - last) / microsPerToken;
            tokens = Math.min(capacity, tokens + refill);
            last = tokens == capacity ? now : last + refill * microsPerToken;
        }
        if (tokens < cost) {
            return false;
        }
        long ttlMicros = (capacity - tokens + cost) * microsPerToken;
        ((ExtendedMapEntry<String, long[]>) entry).setValue(new long[] {tokens - cost, last},
                ttlSeconds(ttlMicros), TimeUnit.SECONDS);
        wrote = true;
        return true;
    }

    @Override
    public @Nullable EntryProcessor<String, long[], Boolean> getBackupProcessor() {
        return wrote ? this : null;
    }

    /** A TTL of {@code ttlMicros} in the whole seconds Hazelcast keeps: rounded up, plus one. */
    static long ttlSeconds(long ttlMicros) {
        return (Math.max(0, ttlMicros) + MICROS_PER_SECOND - 1) / MICROS_PER_SECOND + 1;
    }

    @Override
    public int getFactoryId() {
        return FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return CLASS_ID;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeLong(capacity);
        out.writeLong(microsPerToken);
        out.writeLong(cost);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        capacity = in.readLong();
        microsPerToken = in.readLong();
        cost = in.readLong();
    }

    /** Creates the processor on the member that receives it. */
    static final class Factory implements DataSerializableFactory {
        @Override
        public @Nullable IdentifiedDataSerializable create(int typeId) {
            return typeId == CLASS_ID ? new TokenBucketFloorProcessor() : null;
        }
    }
}
