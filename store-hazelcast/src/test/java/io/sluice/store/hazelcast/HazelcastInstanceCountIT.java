package io.sluice.store.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import io.sluice.api.InstanceCount;
import io.sluice.api.Store;
import io.sluice.testkit.InstanceCounts;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Counting the stores of a map on two real members and a client: each store counts once
 * (on a member or a client), a member without a store is not counted, a closed store leaves
 * at once, and one that stops beating is dropped
 * {@value io.sluice.algorithms.instances.Heartbeat#BEATS_TO_EXPIRY} intervals after its last
 * beat on the store's (here virtual) clock.
 */
class HazelcastInstanceCountIT {

    private static final Duration INTERVAL = Duration.ofMillis(100);
    private static final long TTL_MICROS = 3 * INTERVAL.toNanos() / 1_000;

    private static TestCluster cluster;
    private static HazelcastInstance memberWithStore;
    private static HazelcastInstance memberWithout;
    private static HazelcastInstance client;

    private final VirtualClock clock = new VirtualClock(1_700_000_000_000_000L);

    @BeforeAll
    static void startCluster() {
        cluster = new TestCluster();
        memberWithStore = cluster.startMember();
        memberWithout = cluster.startMember();
        client = cluster.startClient();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    private Store store(HazelcastInstance instance, String mapName) {
        return HazelcastStore.builder(instance).mapName(mapName).heartbeatInterval(INTERVAL)
                .clockForTesting(clock).build();
    }

    @Test
    void aMemberAndAClientCountTwoAndAMemberWithoutAStoreIsNotCounted() {
        try (Store onMember = store(memberWithStore, "counted")) {
            try (Store onClient = store(client, "counted")) {
                InstanceCounts.await(onMember, 2, INTERVAL);
                InstanceCounts.await(onClient, 2, INTERVAL);
                try (Store third = store(memberWithout, "counted")) {
                    InstanceCounts.await(onClient, 3, INTERVAL);
                }
                InstanceCounts.await(onClient, 2, INTERVAL);
            }
            InstanceCounts.await(onMember, 1, INTERVAL);
        }
        assertThat(memberWithout.getMap("counted" + HazelcastHeartbeat.MAP_SUFFIX).containsKey(HazelcastHeartbeat.KEY))
                .as("the last store left").isFalse();
    }

    @Test
    void aStoreThatStopsBeatingIsDroppedThreeIntervalsAfterItsLastBeat() {
        try (Store store = store(client, "expiring")) {
            memberWithout.<String, Object>getMap("expiring" + HazelcastHeartbeat.MAP_SUFFIX).executeOnKey(
                    HazelcastHeartbeat.KEY, new InstanceBeat("crashed", TTL_MICROS, false, clock.nowMicros()));
            InstanceCounts.await(store, 2, INTERVAL);
            clock.advanceMicros(TTL_MICROS);
            InstanceCounts.await(store, 1, INTERVAL);
        }
    }

    @Test
    void aStoreThatDoesNotCountInstancesWritesNothingAndAnswersNothing() {
        try (Store store = HazelcastStore.builder(client).mapName("uncounted").countInstances(false).build()) {
            assertThat(((InstanceCount) store).instances()).isEmpty();
            assertThat(memberWithout.getMap("uncounted" + HazelcastHeartbeat.MAP_SUFFIX).size()).isZero();
        }
    }
}
