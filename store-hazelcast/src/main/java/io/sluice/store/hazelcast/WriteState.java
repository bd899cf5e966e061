package io.sluice.store.hazelcast;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Writes a state that the owner computed, with its time to live: on the owner itself, and
 * as the backup processor on every backup, which so stores exactly the owner's bytes and
 * never decides anything with its own clock. Its result type is {@link ApplyLimits}' because
 * a backup processor must have its primary's type; the result is always {@code null}.
 */
final class WriteState implements EntryProcessor<String, Object, long[]>, IdentifiedDataSerializable {

    /** In {@code ttlSeconds}: no Hazelcast time to live (under a test clock). */
    static final long NO_TTL = -1;

    private static final long serialVersionUID = 1L;
    private static final long MICROS_PER_SECOND = 1_000_000;

    /** The encoded state, or {@code null} to remove the entry. */
    private byte @Nullable [] value;
    private long ttlSeconds;

    /** For deserialization on a member. */
    WriteState() {
    }

    private WriteState(byte @Nullable [] value, long ttlSeconds) {
        this.value = value;
        this.ttlSeconds = ttlSeconds;
    }

    /**
     * The write of {@code state} ({@code null}: remove the entry), which matters for
     * {@code ttlMicros}; with {@code expire} false (a test clock) it gets no time to live.
     * Hazelcast keeps a time to live and an expiration time in whole seconds, truncated: the
     * time to live is rounded up and one second added, so an entry never goes before its last
     * limit is fully reset.
     */
    static WriteState of(byte @Nullable [] state, long ttlMicros, boolean expire) {
        return new WriteState(state, state == null ? NO_TTL : ttlSeconds(ttlMicros, expire));
    }

    /** The time to live in whole seconds that {@link #of} gives a state that matters for {@code ttlMicros}. */
    static long ttlSeconds(long ttlMicros, boolean expire) {
        return expire ? (Math.max(0, ttlMicros) + MICROS_PER_SECOND - 1) / MICROS_PER_SECOND + 1 : NO_TTL;
    }

    @Override
    public long @Nullable [] process(Map.Entry<String, Object> entry) {
        store(entry, value, ttlSeconds);
        return null;
    }

    /** Stores {@code value} in {@code entry} ({@code null}: removes it) with {@code ttlSeconds} ({@link #ttlSeconds}). */
    static void store(Map.Entry<String, Object> entry, @Nullable Object value, long ttlSeconds) {
        if (value == null || ttlSeconds == NO_TTL) {
            entry.setValue(value);
        } else {
            ((ExtendedMapEntry<String, Object>) entry).setValue(value, ttlSeconds, TimeUnit.SECONDS);
        }
    }

    @Override
    public int getFactoryId() {
        return ProcessorFactory.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return ProcessorFactory.WRITE_STATE;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByteArray(value);
        out.writeLong(ttlSeconds);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        value = in.readByteArray();
        ttlSeconds = in.readLong();
    }
}
