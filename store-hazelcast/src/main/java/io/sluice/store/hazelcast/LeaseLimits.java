package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.sluice.algorithms.grid.GridLease;
import io.sluice.algorithms.grid.GridRequest;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A lease, or the give-back of a lease's unused tokens, on one key: runs on the key's
 * partition owner like {@link ApplyLimits}, with the owner's clock (or the caller's test
 * clock), and hands the backups the state it computed as a {@link WriteState}, so that no
 * backup recomputes it with its own clock. Returns {@link GridLease}'s answer (empty for a
 * give-back).
 */
final class LeaseLimits implements EntryProcessor<String, byte[], long[]>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    /** In {@code takenAtMicros}: this is a lease, not a give-back. */
    private static final long LEASE = Long.MIN_VALUE;

    private static final long serialVersionUID = 1L;

    /** {@link GridRequest#encode}'s bytes; the cost is the most tokens, or the unused ones. */
    private byte[] request;
    /** The given-back lease's time, or {@link #LEASE}. */
    private long takenAtMicros;

    private transient @Nullable HazelcastInstance member;
    private transient @Nullable WriteState write;

    /** For deserialization on a member. */
    LeaseLimits() {
        this.request = new byte[0];
    }

    private LeaseLimits(byte[] request, long takenAtMicros) {
        this.request = request;
        this.takenAtMicros = takenAtMicros;
    }

    /** A lease of at most the request's cost in tokens. */
    static LeaseLimits lease(byte[] request) {
        return new LeaseLimits(request, LEASE);
    }

    /** The give-back of the request's cost in unused tokens of a lease taken at {@code takenAtMicros}. */
    static LeaseLimits giveBack(byte[] request, long takenAtMicros) {
        if (takenAtMicros == LEASE) {
            throw new IllegalArgumentException("not a lease's time: " + takenAtMicros);
        }
        return new LeaseLimits(request, takenAtMicros);
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.member = hazelcastInstance;
    }

    @Override
    public long[] process(Map.Entry<String, byte[]> entry) {
        GridRequest decoded = GridRequest.decode(request);
        boolean memberClock = decoded.usesMemberClock();
        long now = memberClock ? MemberClock.nowMicros(member) : decoded.callerNowMicros();
        GridLease.Outcome outcome = takenAtMicros == LEASE
                ? GridLease.lease(decoded, entry.getValue(), now)
                : GridLease.giveBack(decoded, takenAtMicros, entry.getValue(), now);
        write = outcome.write() ? WriteState.of(outcome.state(), outcome.ttlMicros(), memberClock) : null;
        if (write != null) {
            write.process(entry);
        }
        return outcome.reply();
    }

    @Override
    public @Nullable EntryProcessor<String, byte[], long[]> getBackupProcessor() {
        return write;
    }

    @Override
    public int getFactoryId() {
        return ProcessorFactory.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return ProcessorFactory.LEASE_LIMITS;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByteArray(request);
        out.writeLong(takenAtMicros);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        byte[] read = in.readByteArray();
        if (read == null) {
            throw new IOException("a LeaseLimits without its request");
        }
        request = read;
        takenAtMicros = in.readLong();
    }
}
