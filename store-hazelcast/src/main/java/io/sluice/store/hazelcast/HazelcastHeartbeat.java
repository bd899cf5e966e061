package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import io.sluice.algorithms.grid.GridRequest;
import io.sluice.algorithms.instances.Heartbeat;
import io.sluice.api.TimeSource;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The Hazelcast store's beat: an {@link InstanceBeat} on the one entry {@link #KEY} of the map
 * {@code <map name>}{@link #MAP_SUFFIX}, so that only stores (members or clients that decide)
 * are counted, never a member that only holds data.
 */
final class HazelcastHeartbeat {

    /** The registry's map is the store's map's name followed by this. */
    static final String MAP_SUFFIX = "-instances";
    /** The registry's key in that map. */
    static final String KEY = "instances";

    private HazelcastHeartbeat() {
    }

    /** Starts announcing a store of map {@code mapName}; {@code clockForTesting} stands in for the owner's clock. */
    static Heartbeat start(HazelcastInstance instance, String mapName, Duration interval,
                           @Nullable TimeSource clockForTesting) {
        String registry = mapName + MAP_SUFFIX;
        return Heartbeat.start("the Hazelcast map '" + registry + "'", interval,
                (instanceId, ttlMicros, leave, timeout) -> {
                    long now = clockForTesting == null ? GridRequest.MEMBER_CLOCK : clockForTesting.nowMicros();
                    long[] live = instance.<String, Object>getMap(registry)
                            .submitToKey(KEY, new InstanceBeat(instanceId, ttlMicros, leave, now))
                            .toCompletableFuture().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
                    return Math.toIntExact(live[0]);
                });
    }
}
