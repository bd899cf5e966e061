package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.sluice.algorithms.grid.GridRequest;
import io.sluice.algorithms.instances.InstanceRegistry;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One beat of a store's heartbeat on the registry entry of its map's instances: runs on the
 * entry's owner, with the owner's clock (or the test clock the caller read), changes the
 * registry as {@link InstanceRegistry#beat} says and returns the live instances as a
 * one-element array. Backups get the owner's bytes through a {@link WriteState}, with the
 * registry's time to live, so a fleet that is gone leaves nothing behind.
 */
final class InstanceBeat implements EntryProcessor<String, Object, long[]>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    private static final long serialVersionUID = 1L;

    private String instanceId = "";
    private long ttlMicros;
    private boolean leave;
    /** The caller's test clock's time, or {@link GridRequest#MEMBER_CLOCK}. */
    private long nowMicros;

    private transient @Nullable HazelcastInstance member;
    private transient @Nullable WriteState write;

    /** For deserialization on a member. */
    InstanceBeat() {
    }

    InstanceBeat(String instanceId, long ttlMicros, boolean leave, long nowMicros) {
        this.instanceId = instanceId;
        this.ttlMicros = ttlMicros;
        this.leave = leave;
        this.nowMicros = nowMicros;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.member = hazelcastInstance;
    }

    @Override
    public long[] process(Map.Entry<String, Object> entry) {
        boolean memberClock = nowMicros == GridRequest.MEMBER_CLOCK;
        long now = memberClock ? MemberClock.nowMicros(member) : nowMicros;
        InstanceRegistry.Beaten beaten = InstanceRegistry.beat((byte[]) entry.getValue(), instanceId, now, ttlMicros, leave);
        write = WriteState.of(beaten.registry(), ttlMicros, memberClock);
        write.process(entry);
        return new long[] {beaten.instances()};
    }

    @Override
    public @Nullable EntryProcessor<String, Object, long[]> getBackupProcessor() {
        return write;
    }

    @Override
    public int getFactoryId() {
        return ProcessorFactory.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return ProcessorFactory.INSTANCE_BEAT;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeString(instanceId);
        out.writeLong(ttlMicros);
        out.writeBoolean(leave);
        out.writeLong(nowMicros);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        String read = in.readString();
        if (read == null) {
            throw new IOException("an InstanceBeat without its instance");
        }
        instanceId = read;
        ttlMicros = in.readLong();
        leave = in.readBoolean();
        nowMicros = in.readLong();
    }
}
