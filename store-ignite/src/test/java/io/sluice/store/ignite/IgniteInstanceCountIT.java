package io.sluice.store.ignite;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.InstanceCount;
import io.sluice.api.Store;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
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
                awaitCount(onServer, 2);
                awaitCount(onClient, 2);
            }
            awaitCount(onServer, 1);
        }
        assertThat(serverWithout.cache("counted" + IgniteHeartbeat.CACHE_SUFFIX).containsKey(IgniteHeartbeat.KEY))
                .as("the last store left").isFalse();
    }

    @Test
    void aStoreThatStopsBeatingIsDroppedThreeIntervalsAfterItsLastBeat() {
        try (Store store = store(client, "expiring")) {
            awaitCount(store, 1);
            serverWithout.<String, byte[]>cache("expiring" + IgniteHeartbeat.CACHE_SUFFIX).invoke(
                    IgniteHeartbeat.KEY, new InstanceBeat("crashed", TTL_MICROS, false, clock.nowMicros()));
            awaitCount(store, 2);
            clock.advanceMicros(TTL_MICROS);
            awaitCount(store, 1);
        }
    }

    @Test
    void aStoreThatDoesNotCountInstancesCreatesNothingAndAnswersNothing() {
        try (Store store = IgniteStore.builder(client).cacheName("uncounted").countInstances(false).build()) {
            assertThat(((InstanceCount) store).instances()).isEmpty();
            assertThat(serverWithout.cacheNames()).doesNotContain("uncounted" + IgniteHeartbeat.CACHE_SUFFIX);
        }
    }

    /** Waits (at most 60 s) for the store's heartbeat to report {@code expected}. */
    private static void awaitCount(Store store, int expected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!((InstanceCount) store).instances().equals(OptionalInt.of(expected))) {
            assertThat(System.nanoTime() - deadline).as("waited 60 s for " + expected + " instances, have "
                    + ((InstanceCount) store).instances()).isNegative();
            try {
                Thread.sleep(INTERVAL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
