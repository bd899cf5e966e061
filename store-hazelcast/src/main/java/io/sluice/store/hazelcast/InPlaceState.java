package io.sluice.store.hazelcast;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.query.impl.CachedQueryEntry;
import io.sluice.algorithms.KeyState;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A key's long state (a sliding log's) as the value of a map in Hazelcast's {@code OBJECT}
 * in-memory format: the {@link KeyState} itself, which every operation changes in place
 * ({@link io.sluice.algorithms.grid.GridOperation#runInPlace}) on the owner and, replayed
 * ({@link ReplayOnBackup}), on each backup, as the local store changes its own: a sliding
 * log's admission appends to a log with room, amortised O(1), instead of encoding the whole
 * log into a new {@code byte[]} on every member. An {@code OBJECT} map hands an entry
 * processor the stored value itself (Hazelcast 5.7.0's {@code EntryOperator} copies it only
 * for a map with an index) and stores the value {@code setValue} gives it as it is, still
 * counting a write (time to live, statistics, backups) when it is the same object. Only the
 * partition's thread reads or changes it, as every operation on the key, a migration's or
 * replication's serialization of it included; a map read from another thread (a
 * {@code read-backup-data} read, a query) could see it half-changed, and Sluice does neither.
 *
 * <p>On the wire (a migration, a replica's copy, a {@code get}) it is its state's
 * {@linkplain KeyState#encode() encoding}. Type {@link ProcessorFactory#IN_PLACE_STATE}, which
 * members of versions before 2026-12-03 cannot read: a member keeps no new state so while its
 * configuration sets {@link HazelcastStore#STATE_IN_PLACE_PROPERTY} (or
 * {@link HazelcastStore#REPLAY_BACKUPS_PROPERTY}) to {@code false}.
 */
final class InPlaceState implements IdentifiedDataSerializable {

    private KeyState state;

    /** For deserialization on a member. */
    InPlaceState() {
        this.state = KeyState.empty();
    }

    private InPlaceState(KeyState state) {
        this.state = state;
    }

    /** The state, which an operation changes in place. */
    KeyState state() {
        return state;
    }

    /**
     * Stores this value in {@code entry} after an operation changed its state: again, as the
     * same object, with the time to live of a state that matters for {@code ttlMicros}
     * ({@link WriteState#ttlSeconds}), or removes the entry when the state holds nothing.
     */
    void storeIn(Map.Entry<String, Object> entry, long ttlMicros, boolean expire) {
        WriteState.store(entry, state.isEmpty() ? null : this, WriteState.ttlSeconds(ttlMicros, expire));
    }

    /**
     * The value of {@code entry} to run an operation on in place: the entry's value when it
     * is one; else, when the map keeps its values as objects, holds more than
     * {@code longerThan} bytes for the entry (a state larger than its replay) and no
     * sliding log kept as a head ({@link KeyState#holdsHeads}), and
     * {@code member} keeps states in place ({@link #keptBy}), a new one of those bytes
     * decoded, which the operation's write then stores; else {@code null}, and the operation
     * runs on the bytes. Call it before anything reads the entry's value.
     *
     * @param foundNothing whether to decide on no state whatever the entry holds (a backup
     *     whose owner found none)
     */
    static @Nullable InPlaceState of(Map.Entry<String, Object> entry, boolean foundNothing, int longerThan,
                                     @Nullable HazelcastInstance member) {
        // Read before getValue(), which deserializes a BINARY map's value and caches it.
        boolean keepsObjects = entry instanceof CachedQueryEntry<?, ?> cached && cached.getValueIfPresent() != null;
        Object stored = foundNothing ? null : entry.getValue();
        if (stored instanceof InPlaceState held) {
            return held;
        }
        // A state kept as heads and chunks (written while the member kept no state in place)
        // stays bytes: in place, its logs could not read their chunks.
        if (keepsObjects && stored instanceof byte[] bytes && bytes.length > longerThan
                && !KeyState.holdsHeads(bytes)
                && (member == null || keptBy(member.getConfig()))) {
            return new InPlaceState(KeyState.decode(bytes));
        }
        return null;
    }

    /**
     * Whether a member of {@code config} keeps long states in place in an {@code OBJECT} map:
     * unless {@link HazelcastStore#STATE_IN_PLACE_PROPERTY} or
     * {@link HazelcastStore#REPLAY_BACKUPS_PROPERTY} is {@code false} (members of an earlier
     * version in the cluster, which cannot read this type).
     */
    static boolean keptBy(Config config) {
        return ApplyLimits.replaysBackups(config)
                && !"false".equals(config.getProperty(HazelcastStore.STATE_IN_PLACE_PROPERTY));
    }

    @Override
    public int getFactoryId() {
        return ProcessorFactory.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return ProcessorFactory.IN_PLACE_STATE;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByteArray(state.encode());
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        byte[] encoded = in.readByteArray();
        if (encoded == null) {
            throw new IOException("a key's state without its bytes");
        }
        state = KeyState.decode(encoded);
    }
}
