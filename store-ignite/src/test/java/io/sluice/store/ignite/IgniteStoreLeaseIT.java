package io.sluice.store.ignite;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
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

    private static SkewedCluster cluster;

    @BeforeAll
    static void startSkewedCluster() {
        cluster = new SkewedCluster("lease");
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void leasesAndGiveBacksRunOnThePrimarysClockAndBackupsStoreItsState() {
        List<Limit> limits = List.of(
                Limit.of(Algorithms.SLIDING_WINDOW_COUNTER, 50, Duration.ofSeconds(10)).named("window"),
                Limit.of(Algorithms.TOKEN_BUCKET, 5, Duration.ofSeconds(1)).withBurst(20).named("bucket"));
        List<String> keys = cluster.keysWithEveryNodeAsPrimary("lease-");
        Map<String, KeyState> references = new HashMap<>();
        Map<String, Lease> outstanding = new HashMap<>();
        Random random = new Random(29);
        int granted = 0;
        int givenBack = 0;
        for (int step = 0; step < 400; step++) {
            cluster.time.advanceMicros(random.nextInt(300_000));
            String key = keys.get(random.nextInt(keys.size()));
            Store store = cluster.stores.get(random.nextInt(cluster.stores.size()));
            KeyState reference = references.computeIfAbsent(key, k -> KeyState.empty());
            long primaryNow = cluster.clockOf(cluster.primaryOf(key)).nowMicros();
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
            cluster.assertBackupHoldsThePrimarysCopy(key, step);
        }
        assertThat(granted).as("leases that granted tokens").isPositive();
        assertThat(givenBack).as("give-backs").isPositive();
    }
}
