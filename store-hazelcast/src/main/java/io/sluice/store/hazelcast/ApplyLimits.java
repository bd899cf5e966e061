package io.sluice.store.hazelcast;

import com.hazelcast.config.Config;
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
 * state. Instead, {@link #getBackupProcessor()} hands the backups what makes them store the
 * bytes and time to live computed here: the operation to replay at the owner's time
 * ({@link ReplayOnBackup}) when the new state is larger than that (a sliding log: the state
 * grows with the log, the request does not), else the bytes themselves ({@link WriteState});
 * nothing is sent when nothing changed (a denial). The replay is off on an owner whose
 * configuration sets {@link HazelcastStore#REPLAY_BACKUPS_PROPERTY} to {@code false} (during a
 * rolling upgrade from a version that cannot read it). Hazelcast asks for the backup processor
 * after {@link #process} on the same instance, and runs a new instance for every invocation,
 * so the fields carrying it are never shared between requests.
 *
 * <p>On the wire a decision is type {@link ProcessorFactory#APPLY_LIMITS} (the request's bytes)
 * and a lease or give-back type {@link ProcessorFactory#LEASE_LIMITS} (the bytes, then the lease
 * time), as the two processors of earlier versions wrote them, so members read both.
 */
final class ApplyLimits implements EntryProcessor<String, Object, long[]>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    private static final long serialVersionUID = 1L;

    private final boolean leasing;
    private GridOperation operation;

    private transient @Nullable HazelcastInstance member;
    private transient @Nullable EntryProcessor<String, Object, long[]> backup;
    /** The owner's time, once {@link #process} read it: what a replay on the backups decides at. */
    private transient long ownerNowMicros = GridRequest.MEMBER_CLOCK;

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
    public long[] process(Map.Entry<String, Object> entry) {
        InPlaceState held = InPlaceState.of(entry, false, replayBytes(), member);
        if (held != null) {
            return processInPlace(entry, held);
        }
        byte[] stored = (byte[]) entry.getValue();
        GridRequest.Outcome outcome = operation.run(stored, this::readOwnersClock);
        if (!outcome.write()) {
            backup = null;
            return outcome.reply();
        }
        WriteState write = WriteState.of(outcome.state(), outcome.ttlMicros(), operation.usesMemberClock());
        write.process(entry);
        backup = replaySmaller(outcome.state()) && replayAllowed()
                ? new ReplayOnBackup(operation, ownerNowMicros, stored == null) : write;
        return outcome.reply();
    }

    /**
     * The operation on a state kept in place ({@link InPlaceState}): stored again, as the same
     * object, when it changed (or the entry removed when it holds nothing any more), and
     * replayed on the backups, which hold their own.
     */
    private long[] processInPlace(Map.Entry<String, Object> entry, InPlaceState held) {
        GridRequest.Outcome outcome = operation.runInPlace(held.state(), this::readOwnersClock);
        if (!outcome.write()) {
            backup = null;
            return outcome.reply();
        }
        held.storeIn(entry, outcome.ttlMicros(), operation.usesMemberClock());
        backup = replayAllowed() ? new ReplayOnBackup(operation, ownerNowMicros, false)
                : WriteState.of(held.state().isEmpty() ? null : held.state().encode(), outcome.ttlMicros(),
                        operation.usesMemberClock());
        return outcome.reply();
    }

    private long readOwnersClock() {
        ownerNowMicros = MemberClock.nowMicros(member);
        return ownerNowMicros;
    }

    /** Whether replaying the operation sends fewer bytes to each backup than the new state. */
    private boolean replaySmaller(byte @Nullable [] state) {
        return state != null && state.length > replayBytes();
    }

    /** The bytes a replay of the operation sends each backup. */
    private int replayBytes() {
        return ReplayOnBackup.bytes(operation);
    }

    private boolean replayAllowed() {
        HazelcastInstance instance = member;
        return instance == null || replaysBackups(instance.getConfig());
    }

    /** Whether a member of {@code config} replays on its backups ({@link HazelcastStore#REPLAY_BACKUPS_PROPERTY}). */
    static boolean replaysBackups(Config config) {
        return !"false".equals(config.getProperty(HazelcastStore.REPLAY_BACKUPS_PROPERTY));
    }

    @Override
    public @Nullable EntryProcessor<String, Object, long[]> getBackupProcessor() {
        return backup;
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
