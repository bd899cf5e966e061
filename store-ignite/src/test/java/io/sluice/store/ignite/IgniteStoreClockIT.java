package io.sluice.store.ignite;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
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

    private static SkewedCluster cluster;

    @BeforeAll
    static void startSkewedCluster() {
        cluster = new SkewedCluster("clock");
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyCallerGetsThePrimarysAnswerAndBackupsStoreItUnchanged() {
        List<Limit> limits = List.of(
                Limit.of(Algorithms.FIXED_WINDOW, 20, Duration.ofSeconds(10)).named("window"),
                Limit.of(Algorithms.TOKEN_BUCKET, 5, Duration.ofSeconds(1)).withBurst(8).named("bucket"));
        List<String> keys = cluster.keysWithEveryNodeAsPrimary("client-");
        Map<String, KeyState> references = new HashMap<>();
        Random random = new Random(17);
        Map<String, KeyState> callerClockReferences = new HashMap<>();
        int differentFromCallersClock = 0;
        for (int step = 0; step < 600; step++) {
            cluster.time.advanceMicros(random.nextInt(200_000));
            String key = keys.get(random.nextInt(keys.size()));
            int caller = random.nextInt(cluster.stores.size());
            Decision decision = cluster.stores.get(caller).tryAcquire(key, limits, 1).toCompletableFuture().join();

            long primaryNow = cluster.clockOf(cluster.primaryOf(key)).nowMicros();
            Decision expected = references.computeIfAbsent(key, k -> KeyState.empty())
                    .tryAcquire(limits, primaryNow, 1);
            assertThat(decision).as("step %d, key %s from node %d", step, key, caller).isEqualTo(expected);

            // What a store deciding with each caller's own clock would have answered instead.
            Decision withCallersClock = callerClockReferences.computeIfAbsent(key, k -> KeyState.empty())
                    .tryAcquire(limits, cluster.clockOf(cluster.nodes.get(caller)).nowMicros(), 1);
            if (!withCallersClock.equals(decision)) {
                differentFromCallersClock++;
            }
            cluster.assertBackupHoldsThePrimarysCopy(key, step);
        }
        assertThat(differentFromCallersClock).as("decisions the callers' clocks would have changed").isPositive();
    }
}
