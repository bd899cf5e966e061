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
 * The backup processor of an {@link ApplyLimits} whose new state is larger than its request (a
 * sliding log above all: 16 bytes an entry): the operation itself, replayed on each backup at
 * the owner's time, instead of the owner's bytes ({@link WriteState}). A backup replica holds
 * the state the owner read (Hazelcast applies a partition's backups in order and skips a stale
 * one), and the algorithms are deterministic in the state, the request and the time, so the
 * backup computes and stores the owner's bytes with the owner's time to live; it never reads
 * its own clock. A replica that lost a backup (a failure between members) is the exception:
 * Hazelcast 5.7 applies the next one to it, then finds the gap in the partition's versions
 * and copies the owner's partition over it, so a replay there holds another state until that
 * copy, as every other entry that missed its backup does.
 *
 * <p>A request carrying the chunks of long sliding logs and the acknowledgements of chunks
 * written ({@code GridOperation.withChunks}) replays as any other: the
 * head the owner wrote is a function of the state, the request with its chunks, and the time,
 * so the backup writes the same head (it asks for no chunk: it decides exactly what the owner
 * did, up to the decision the owner stopped at for want of one).
 *
 * <p>When the owner found no entry (absent, or expired on the owner), the backup decides on no
 * state either, even if its replica still holds the expired entry (Hazelcast removes expired
 * backup entries later than the owner's).
 *
 * <p>Type {@link ProcessorFactory#REPLAY_ON_BACKUP}: members of versions before it cannot
 * read it, so an owner sends it only when its configuration allows
 * ({@link HazelcastStore#REPLAY_BACKUPS_PROPERTY}). Its result type is {@link ApplyLimits}'
 * because a backup processor must have its primary's type; the result is always {@code null}.
 */
final class ReplayOnBackup implements EntryProcessor<String, Object, long[]>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    private static final long serialVersionUID = 1L;

    /** The fields after the request on the wire: leasing, lease time, the owner's time, found nothing. */
    private static final int FIELD_BYTES = 1 + Long.BYTES + Long.BYTES + 1;

    private GridOperation operation;
    /** The owner's time the operation ran at; {@link GridRequest#MEMBER_CLOCK} when it ran at the caller's. */
    private long ownerNowMicros;
    private boolean ownerFoundNothing;
    private transient @Nullable HazelcastInstance member;

    /** For deserialization on a member. */
    ReplayOnBackup() {
        this.operation = GridOperation.decisionOnWire(new byte[0]);
    }

    ReplayOnBackup(GridOperation operation, long ownerNowMicros, boolean ownerFoundNothing) {
        this.operation = operation;
        this.ownerNowMicros = ownerNowMicros;
        this.ownerFoundNothing = ownerFoundNothing;
    }

    /** The bytes a replay of {@code operation} is on the wire: its request and the fields after it. */
    static int bytes(GridOperation operation) {
        return operation.request().length + FIELD_BYTES;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.member = hazelcastInstance;
    }

    @Override
    public long @Nullable [] process(Map.Entry<String, Object> entry) {
        InPlaceState held = InPlaceState.of(entry, ownerFoundNothing, bytes(operation), member);
        if (held != null) {
            GridRequest.Outcome outcome = operation.runInPlace(held.state(), this::ownerNow);
            if (outcome.write()) {
                held.storeIn(entry, outcome.ttlMicros(), operation.usesMemberClock());
            }
            return null;
        }
        byte[] stored = ownerFoundNothing ? null : (byte[]) entry.getValue();
        GridRequest.Outcome outcome = operation.run(stored, this::ownerNow);
        if (outcome.write()) {
            WriteState.of(outcome.state(), outcome.ttlMicros(), operation.usesMemberClock()).process(entry);
        }
        return null;
    }

    private long ownerNow() {
        if (ownerNowMicros == GridRequest.MEMBER_CLOCK) {
            throw new IllegalStateException("a replay at the member's time without the owner's time");
        }
        return ownerNowMicros;
    }

    @Override
    public int getFactoryId() {
        return ProcessorFactory.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return ProcessorFactory.REPLAY_ON_BACKUP;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByteArray(operation.request());
        out.writeBoolean(operation.leasing());
        out.writeLong(operation.leaseTime());
        out.writeLong(ownerNowMicros);
        out.writeBoolean(ownerFoundNothing);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        byte[] request = in.readByteArray();
        if (request == null) {
            throw new IOException("a replay without its request");
        }
        boolean leasing = in.readBoolean();
        long leaseTime = in.readLong();
        operation = leasing ? GridOperation.leasingOnWire(request, leaseTime) : GridOperation.decisionOnWire(request);
        ownerNowMicros = in.readLong();
        ownerFoundNothing = in.readBoolean();
    }
}
