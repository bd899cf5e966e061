package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.io.IOException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One request on one key: runs on the key's partition owner, under the partition's lock,
 * decodes the key's {@link KeyState}, applies every limit with the owner's clock (or the
 * test clock the caller read), and, when admitted, writes the new state with its time to
 * live. Returns the decision as {@link DecisionCodec} encodes it.
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

    /** In {@code nowMicros}: decide with the owning member's clock. */
    static final long MEMBER_CLOCK = Long.MIN_VALUE;

    private static final long serialVersionUID = 1L;

    private String[] names;
    private String[] algorithms;
    private long[] permits;
    private long[] bursts;
    private long[] periodsMicros;
    private long cost;
    private long nowMicros;

    private transient HazelcastInstance member;
    private transient @Nullable WriteState write;

    /** For deserialization on a member. */
    ApplyLimits() {
    }

    ApplyLimits(List<Limit> limits, long cost, long nowMicros) {
        int count = limits.size();
        names = new String[count];
        algorithms = new String[count];
        permits = new long[count];
        bursts = new long[count];
        periodsMicros = new long[count];
        for (int i = 0; i < count; i++) {
            Limit limit = limits.get(i);
            names[i] = limit.name();
            algorithms[i] = limit.algorithm().name();
            permits[i] = limit.permits();
            bursts[i] = limit.burst();
            periodsMicros[i] = limit.periodMicros();
        }
        this.cost = cost;
        this.nowMicros = nowMicros;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.member = hazelcastInstance;
    }

    @Override
    public long[] process(Map.Entry<String, byte[]> entry) {
        List<Limit> limits = limits();
        long now = nowMicros != MEMBER_CLOCK ? nowMicros : MemberClock.nowMicros(member);
        byte[] stored = entry.getValue();
        KeyState state = stored != null ? KeyState.decode(stored) : KeyState.empty();
        Decision decision = state.tryAcquire(limits, now, cost);
        write = decision.allowed() ? WriteState.of(state, now, nowMicros == MEMBER_CLOCK) : null;
        if (write != null) {
            write.process(entry);
        }
        return DecisionCodec.encode(decision, limits);
    }

    @Override
    public @Nullable EntryProcessor<String, byte[], long[]> getBackupProcessor() {
        return write;
    }

    /** The limits as the caller built them; only the five built-in algorithms travel. */
    private List<Limit> limits() {
        Limit[] limits = new Limit[names.length];
        for (int i = 0; i < limits.length; i++) {
            Limit limit = Limit.of(Algorithms.byName(algorithms[i]), permits[i],
                    Duration.of(periodsMicros[i], ChronoUnit.MICROS));
            if (bursts[i] != permits[i]) {
                limit = limit.withBurst(bursts[i]);
            }
            limits[i] = limit.named(names[i]);
        }
        return List.of(limits);
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
        out.writeInt(names.length);
        for (int i = 0; i < names.length; i++) {
            out.writeString(names[i]);
            out.writeString(algorithms[i]);
            out.writeLong(permits[i]);
            out.writeLong(bursts[i]);
            out.writeLong(periodsMicros[i]);
        }
        out.writeLong(cost);
        out.writeLong(nowMicros);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        int count = in.readInt();
        names = new String[count];
        algorithms = new String[count];
        permits = new long[count];
        bursts = new long[count];
        periodsMicros = new long[count];
        for (int i = 0; i < count; i++) {
            names[i] = in.readString();
            algorithms[i] = in.readString();
            permits[i] = in.readLong();
            bursts[i] = in.readLong();
            periodsMicros[i] = in.readLong();
        }
        cost = in.readLong();
        nowMicros = in.readLong();
    }
}
