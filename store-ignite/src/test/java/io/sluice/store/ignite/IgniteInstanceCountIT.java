package io.sluice.store.ignite;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.InstanceCount;
import io.sluice.api.Store;
import io.sluice.testkit.InstanceCounts;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import org.apache.ignite.Ignite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Counting the stores of a cache on two real server nodes and a client node: each store
 * counts once (on a server or a client), a server without a store is not counted, a closed
 * store leaves at once, and one that stops beating is dropped
 * {@value io.sluice.algorithms.instances.Heartbeat#BEATS_TO_EXPIRY} intervals after its last
 * beat on the store's (here virtual) clock.
 */
class IgniteInstanceCountIT {

    private static final Duration INTERVAL = Duration.ofMillis(100);
    private static final long TTL_MICROS = 3 * INTERVAL.toNanos() / 1_000;

    private static IgniteMembers members;
    private static Ignite serverWithStore;
    private static Ignite serverWithout;
    private static Ignite client;

    private final VirtualClock clock = new VirtualClock(1_700_000_000_000_000L);

    @BeforeAll
    static void startCluster() {
        members = new IgniteMembers("instances");
        serverWithStore = members.startServer("a");
        serverWithout = members.startServer("b");
        client = members.startClient("client");
    }

    @AfterAll
    static void stopCluster() {
        members.close();
    }

    private Store store(Ignite node, String cacheName) {
        return IgniteStore.builder(node).cacheName(cacheName).heartbeatInterval(INTERVAL)
                .timeout(Duration.ofSeconds(10)).clockForTesting(clock).build();
    }

    @Test
    void aServerAndAClientCountTwoAndAServerWithoutAStoreIsNotCounted() {
        try (Store onServer = store(serverWithStore, "counted")) {
            try (Store onClient = store(client, "counted")) {
                InstanceCounts.await(onServer, 2, INTERVAL);
                InstanceCounts.await(onClient, 2, INTERVAL);
            }
            InstanceCounts.await(onServer, 1, INTERVAL);
        }
        assertThat(serverWithout.cache("counted" + IgniteHeartbeat.CACHE_SUFFIX).containsKey(IgniteHeartbeat.KEY))
                .as("the last store left").isFalse();
    }

    @Test
    void aStoreThatStopsBeatingIsDroppedThreeIntervalsAfterItsLastBeat() {
        try (Store store = store(client, "expiring")) {
            InstanceCounts.await(store, 1, INTERVAL);
            serverWithout.<String, byte[]>cache("expiring" + IgniteHeartbeat.CACHE_SUFFIX).invoke(
                    IgniteHeartbeat.KEY, new InstanceBeat("crashed", TTL_MICROS, false, clock.nowMicros()));
            InstanceCounts.await(store, 2, INTERVAL);
            clock.advanceMicros(TTL_MICROS);
            InstanceCounts.await(store, 1, INTERVAL);
        }
    }

    @Test
    void aStoreThatDoesNotCountInstancesCreatesNothingAndAnswersNothing() {
        try (Store store = IgniteStore.builder(client).cacheName("uncounted").countInstances(false).build()) {
            assertThat(((InstanceCount) store).instances()).isEmpty();
            assertThat(serverWithout.cacheNames()).doesNotContain("uncounted" + IgniteHeartbeat.CACHE_SUFFIX);
        }
    }
}
