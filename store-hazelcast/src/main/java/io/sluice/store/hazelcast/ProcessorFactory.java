package io.sluice.store.hazelcast;

import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import org.jspecify.annotations.Nullable;

/**
 * Creates this store's entry processors, its long states' values in {@code OBJECT} maps and
 * the keys of its long sliding logs' chunks when a member reads them. Registered under
 * {@link #FACTORY_ID} by {@link HazelcastStore#configureSerialization} or by a member's
 * declarative configuration (Hazelcast instantiates it by its name).
 */
final class ProcessorFactory implements DataSerializableFactory {

    /** "Sluc" in ASCII: a fixed id that no other library is likely to use. */
    static final int FACTORY_ID = 0x536C7563;

    /** {@link ApplyLimits} of a decision. */
    static final int APPLY_LIMITS = 1;
    static final int WRITE_STATE = 2;
    // 3 was a processor that read whether a limit held state; not reused, so that a member of
    // an older version never reads another processor under it.
    /** {@link ApplyLimits} of a lease or a give-back (a processor of its own until 2026-12-01). */
    static final int LEASE_LIMITS = 4;
    static final int INSTANCE_BEAT = 5;
    /**
     * {@link ReplayOnBackup} (since 2026-12-02): only an owner sends it, to its backups, so a
     * member of an earlier version receives it only as a backup of a newer owner.
     */
    static final int REPLAY_ON_BACKUP = 6;
    /**
     * {@link InPlaceState} (since 2026-12-03): a value, not a processor; only an {@code OBJECT}
     * map of a member that allows it holds one ({@link HazelcastStore#STATE_IN_PLACE_PROPERTY}).
     */
    static final int IN_PLACE_STATE = 7;
    /**
     * {@link ChunkKey} (since 2026-12-03): a key of the map of a long sliding log's chunks,
     * which only a store of this version writes.
     */
    static final int CHUNK_KEY = 8;

    @Override
    public @Nullable IdentifiedDataSerializable create(int typeId) {
        switch (typeId) {
            case APPLY_LIMITS:
                return new ApplyLimits(false);
            case WRITE_STATE:
                return new WriteState();
            case LEASE_LIMITS:
                return new ApplyLimits(true);
            case INSTANCE_BEAT:
                return new InstanceBeat();
            case REPLAY_ON_BACKUP:
                return new ReplayOnBackup();
            case IN_PLACE_STATE:
                return new InPlaceState();
            case CHUNK_KEY:
                return new ChunkKey();
            default:
                // Hazelcast turns null into an error naming the factory and the type id.
                return null;
        }
    }
}
