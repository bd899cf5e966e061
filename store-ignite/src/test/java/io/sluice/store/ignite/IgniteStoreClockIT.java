package io.sluice.store.ignite;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.TimeSource;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.ignite.Ignite;
import org.apache.ignite.cache.CachePeekMode;
import org.apache.ignite.cache.affinity.Affinity;
import org.apache.ignite.cluster.ClusterNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Three nodes whose clocks disagree by seconds. Limiters on every node use the members' clocks
 * (no test clock): each key is decided by its primary's clock alone, so every caller gets the
 * answer the reference algorithm gives at the primary's time, and backups store exactly what
 * the primary computed.
 */
class IgniteStoreClockIT {

    /** How far each node's clock is from the shared virtual time. */
    private static final long[] SKEW_MICROS = {-7_000_000L, 0L, 11_500_000L};

    private static IgniteMembers members;
    private static List<Ignite> nodes;
    private static List<Store> stores;
    private static final VirtualClock TIME = new VirtualClock(1_700_000_000_000_000L);

    @BeforeAll
    static void startSkewedCluster() {
        members = new IgniteMembers("clock");
        nodes = new ArrayList<>();
        stores = new ArrayList<>();
        for (int i = 0; i < SKEW_MICROS.length; i++) {
            Ignite node = members.startServer("n" + i);
            long skew = SKEW_MICROS[i];
            MemberClock.installForTesting(node, () -> TIME.nowMicros() + skew);
            nodes.add(node);
        }
        for (Ignite node : nodes) {
            stores.add(IgniteStore.builder(node).timeout(Duration.ofSeconds(10)).build());
        }
    }

    @AfterAll
    static void stopCluster() {
        members.close();
    }

    @Test
    void everyCallerGetsThePrimarysAnswerAndBackupsStoreItUnchanged() {
        List<Limit> limits = List.of(
                Limit.of(Algorithms.FIXED_WINDOW, 20, Duration.ofSeconds(10)).named("window"),
                Limit.of(Algorithms.TOKEN_BUCKET, 5, Duration.ofSeconds(1)).withBurst(8).named("bucket"));
        List<String> keys = keysWithEveryNodeAsPrimary();
        Map<String, KeyState> references = new HashMap<>();
        Random random = new Random(17);
        Map<String, KeyState> callerClockReferences = new HashMap<>();
        int differentFromCallersClock = 0;
        for (int step = 0; step < 600; step++) {
            TIME.advanceMicros(random.nextInt(200_000));
            String key = keys.get(random.nextInt(keys.size()));
            int caller = random.nextInt(stores.size());
            Decision decision = stores.get(caller).tryAcquire(key, limits, 1).toCompletableFuture().join();

            long primaryNow = clockOf(primaryOf(key)).nowMicros();
            Decision expected = references.computeIfAbsent(key, k -> KeyState.empty())
                    .tryAcquire(limits, primaryNow, 1);
            assertThat(decision).as("step %d, key %s from node %d", step, key, caller).isEqualTo(expected);

            // What a store deciding with each caller's own clock would have answered instead.
            Decision withCallersClock = callerClockReferences.computeIfAbsent(key, k -> KeyState.empty())
                    .tryAcquire(limits, clockOf(nodes.get(caller)).nowMicros(), 1);
            if (!withCallersClock.equals(decision)) {
                differentFromCallersClock++;
            }
            byte[] onPrimary = primaryOf(key).<String, byte[]>cache(IgniteStore.DEFAULT_CACHE_NAME)
                    .localPeek(key, CachePeekMode.PRIMARY);
            byte[] onBackup = backupOf(key).<String, byte[]>cache(IgniteStore.DEFAULT_CACHE_NAME)
                    .localPeek(key, CachePeekMode.BACKUP);
            assertThat(onBackup).as("backup copy at step %d", step).isEqualTo(onPrimary);
        }
        assertThat(differentFromCallersClock).as("decisions the callers' clocks would have changed").isPositive();
    }

    private static TimeSource clockOf(Ignite node) {
        long skew = SKEW_MICROS[nodes.indexOf(node)];
        return () -> TIME.nowMicros() + skew;
    }

    private static List<String> keysWithEveryNodeAsPrimary() {
        List<String> keys = new ArrayList<>();
        for (Ignite node : nodes) {
            for (int i = 0; ; i++) {
                String key = "client-" + i;
                if (!keys.contains(key) && primaryOf(key) == node) {
                    keys.add(key);
                    break;
                }
            }
        }
        return keys;
    }

    private static Ignite primaryOf(String key) {
        ClusterNode primary = affinity().mapKeyToNode(key);
        return nodes.stream().filter(node -> node.cluster().localNode().equals(primary)).findFirst().orElseThrow();
    }

    private static Ignite backupOf(String key) {
        ClusterNode backup = affinity().mapKeyToPrimaryAndBackups(key).stream().skip(1).findFirst().orElseThrow();
        return nodes.stream().filter(node -> node.cluster().localNode().equals(backup)).findFirst().orElseThrow();
    }

    private static Affinity<String> affinity() {
        return nodes.get(0).affinity(IgniteStore.DEFAULT_CACHE_NAME);
    }
}
