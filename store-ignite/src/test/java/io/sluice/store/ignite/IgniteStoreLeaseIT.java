package io.sluice.store.ignite;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Store;
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
 * Leases and give-backs on three nodes whose clocks disagree by seconds, called from every node
 * with the nodes' clocks (no test clock): each key's lease is taken and its tokens given back on
 * its primary's clock alone, exactly as {@link KeyState#lease} and {@link KeyState#giveBack} at
 * the primary's time, and the backup stores exactly what the primary computed.
 */
class IgniteStoreLeaseIT {

    private static final long[] SKEW_MICROS = {-7_000_000L, 0L, 11_500_000L};
    private static final VirtualClock TIME = new VirtualClock(1_700_000_000_000_000L);

    private static IgniteMembers members;
    private static final List<Ignite> nodes = new ArrayList<>();
    private static final List<Store> stores = new ArrayList<>();

    @BeforeAll
    static void startSkewedCluster() {
        members = new IgniteMembers("lease");
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
    void leasesAndGiveBacksRunOnThePrimarysClockAndBackupsStoreItsState() {
        List<Limit> limits = List.of(
                Limit.of(Algorithms.SLIDING_WINDOW_COUNTER, 50, Duration.ofSeconds(10)).named("window"),
                Limit.of(Algorithms.TOKEN_BUCKET, 5, Duration.ofSeconds(1)).withBurst(20).named("bucket"));
        List<String> keys = keysWithEveryNodeAsPrimary();
        Map<String, KeyState> references = new HashMap<>();
        Map<String, Lease> outstanding = new HashMap<>();
        Random random = new Random(29);
        int granted = 0;
        int givenBack = 0;
        for (int step = 0; step < 400; step++) {
            TIME.advanceMicros(random.nextInt(300_000));
            String key = keys.get(random.nextInt(keys.size()));
            Store store = stores.get(random.nextInt(stores.size()));
            KeyState reference = references.computeIfAbsent(key, k -> KeyState.empty());
            long primaryNow = TIME.nowMicros() + SKEW_MICROS[nodes.indexOf(primaryOf(key))];
            Lease last = outstanding.remove(key);
            int operation = random.nextInt(3);
            if (operation == 0 && last != null && last.tokens() > 0) {
                long unused = 1 + random.nextInt((int) last.tokens());
                store.giveBack(key, limits, last, unused).toCompletableFuture().join();
                reference.giveBack(limits, primaryNow, last.takenAtMicros(), unused);
                givenBack++;
            } else if (operation == 1) {
                Decision decision = store.tryAcquire(key, limits, 1).toCompletableFuture().join();
                assertThat(decision).as("step %d", step).isEqualTo(reference.tryAcquire(limits, primaryNow, 1));
            } else {
                long most = 1 + random.nextInt(15);
                Lease lease = store.lease(key, limits, most).toCompletableFuture().join();
                assertThat(lease).as("step %d: a lease of at most %d", step, most)
                        .isEqualTo(reference.lease(limits, primaryNow, most));
                outstanding.put(key, lease);
                granted += lease.tokens() > 0 ? 1 : 0;
            }
            byte[] onPrimary = primaryOf(key).<String, byte[]>cache(IgniteStore.DEFAULT_CACHE_NAME)
                    .localPeek(key, CachePeekMode.PRIMARY);
            byte[] onBackup = backupOf(key).<String, byte[]>cache(IgniteStore.DEFAULT_CACHE_NAME)
                    .localPeek(key, CachePeekMode.BACKUP);
            assertThat(onBackup).as("backup copy at step %d", step).isEqualTo(onPrimary);
        }
        assertThat(granted).as("leases that granted tokens").isPositive();
        assertThat(givenBack).as("give-backs").isPositive();
    }

    private static List<String> keysWithEveryNodeAsPrimary() {
        List<String> keys = new ArrayList<>();
        for (Ignite node : nodes) {
            for (int i = 0; ; i++) {
                String key = "lease-" + i;
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
