package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.sluice.algorithms.grid.GridOperation;
import io.sluice.algorithms.grid.GridRequest;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One {@link GridOperation} (a decision, a lease or a give-back) on one key: runs on the key's
 * partition owner, under the partition's lock, with the owner's clock (or the test clock the
 * caller read), and, when the state changed, writes it with its time to live. Returns the
 * operation's answer ({@link io.sluice.algorithms.grid.GridReply}'s or
 * {@link io.sluice.algorithms.grid.GridLease}'s form).
 *
 * <p>Hazelcast's default backup processor is the processor itself, which would recompute
 * the decision on each backup with the backup member's clock and could store another
 * state. Instead, {@link #getBackupProcessor()} hands the backups a {@link WriteState} with
 * the bytes and time to live computed here; nothing is sent when nothing changed (a denial).
 * Hazelcast asks for the backup processor after {@link #process} on the same instance, and
 * runs a new instance for every invocation, so the field carrying it is never shared between
 * requests.
 *
 * <p>On the wire a decision is type {@link ProcessorFactory#APPLY_LIMITS} (the request's bytes)
 * and a lease or give-back type {@link ProcessorFactory#LEASE_LIMITS} (the bytes, then the lease
 * time), as the two processors of earlier versions wrote them, so members read both.
 */
final class ApplyLimits implements EntryProcessor<String, byte[], long[]>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    private static final long serialVersionUID = 1L;

    private final boolean leasing;
    private GridOperation operation;

    private transient @Nullable HazelcastInstance member;
    private transient @Nullable WriteState write;

    /** For deserialization on a member: an operation of the kind its type id names. */
    ApplyLimits(boolean leasing) {
        this.leasing = leasing;
        this.operation = GridOperation.decisionOnWire(new byte[0]);
    }

    ApplyLimits(GridOperation operation) {
        this.leasing = operation.leasing();
        this.operation = operation;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.member = hazelcastInstance;
    }

    @Override
    public long[] process(Map.Entry<String, byte[]> entry) {
        GridRequest.Outcome outcome = operation.run(entry.getValue(), () -> MemberClock.nowMicros(member));
        write = outcome.write() ? WriteState.of(outcome.state(), outcome.ttlMicros(), operation.usesMemberClock())
                : null;
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
        return leasing ? ProcessorFactory.LEASE_LIMITS : ProcessorFactory.APPLY_LIMITS;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByteArray(operation.request());
        if (leasing) {
            out.writeLong(operation.leaseTime());
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        byte[] request = in.readByteArray();
        if (request == null) {
            throw new IOException("an entry processor without its request");
        }
        operation = leasing ? GridOperation.leasingOnWire(request, in.readLong()) : GridOperation.decisionOnWire(request);
    }
}
