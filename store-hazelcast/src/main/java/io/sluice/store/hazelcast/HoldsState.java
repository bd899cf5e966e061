package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.core.ReadOnly;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.sluice.algorithms.KeyState;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Whether a key's entry still holds a limit's state, judged on the owner with the owner's
 * clock (or the caller's test clock), like a decision.
 */
final class HoldsState implements EntryProcessor<String, byte[], Boolean>, IdentifiedDataSerializable,
        HazelcastInstanceAware, ReadOnly {

    private static final long serialVersionUID = 1L;

    private String limitName;
    private long nowMicros;

    private transient HazelcastInstance member;

    /** For deserialization on a member. */
    HoldsState() {
    }

    HoldsState(String limitName, long nowMicros) {
        this.limitName = limitName;
        this.nowMicros = nowMicros;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.member = hazelcastInstance;
    }

    @Override
    public Boolean process(Map.Entry<String, byte[]> entry) {
        byte[] stored = entry.getValue();
        long now = nowMicros != ApplyLimits.MEMBER_CLOCK ? nowMicros : MemberClock.nowMicros(member);
        return stored != null && KeyState.decode(stored).holds(limitName, now);
    }

    /** Reads only: nothing to back up. */
    @Override
    public @Nullable EntryProcessor<String, byte[], Boolean> getBackupProcessor() {
        return null;
    }

    @Override
    public int getFactoryId() {
        return ProcessorFactory.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return ProcessorFactory.HOLDS_STATE;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeString(limitName);
        out.writeLong(nowMicros);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        limitName = in.readString();
        nowMicros = in.readLong();
    }
}
