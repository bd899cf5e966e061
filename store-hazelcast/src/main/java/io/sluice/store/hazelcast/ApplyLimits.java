package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.sluice.algorithms.grid.GridRequest;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One request on one key: runs on the key's partition owner, under the partition's lock,
 * decides the {@link GridRequest} it carries on the key's state with the owner's clock (or
 * the test clock the caller read), and, when admitted, writes the new state with its time
 * to live. Returns the decision in {@link io.sluice.algorithms.grid.GridReply}'s form.
 *
 * <p>Hazelcast's default backup processor is the processor itself, which would recompute
 * the decision on each backup with the backup member's clock and could store another
 * state. Instead, {@link #getBackupProcessor()} hands the backups a {@link WriteState} with
 * the bytes and time to live computed here; nothing is sent when the request was denied,
 * since a denial changes nothing. Hazelcast asks for the backup processor after
 * {@link #process} on the same instance, and runs a new instance for every invocation, so
 * the field carrying it is never shared between requests.
 */
final class ApplyLimits implements EntryProcessor<String, byte[], long[]>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    private static final long serialVersionUID = 1L;

    /** {@link GridRequest#encode}'s bytes. */
    private byte[] request;

    private transient @Nullable HazelcastInstance member;
    private transient @Nullable WriteState write;

    /** For deserialization on a member. */
    ApplyLimits() {
        this.request = new byte[0];
    }

    ApplyLimits(byte[] request) {
        this.request = request;
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
        GridRequest.Outcome outcome = decoded.decide(entry.getValue(), now);
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
        return ProcessorFactory.APPLY_LIMITS;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByteArray(request);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        byte[] read = in.readByteArray();
        if (read == null) {
            throw new IOException("an ApplyLimits without its request");
        }
        request = read;
    }
}
