package io.sluice.store.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.MapConfig;
import com.hazelcast.core.HazelcastInstance;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Leases and give-backs on three members whose clocks disagree by seconds, called from every
 * member and a client with the members' clocks (no test clock): each key's lease is taken and
 * its tokens given back on the owner's clock alone, exactly as {@link KeyState#lease} and
 * {@link KeyState#giveBack} at the owner's time, and the backups hold the owner's bytes.
 */
class HazelcastLeaseIT {

    private static final long[] SKEW_MICROS = {-7_000_000L, 0L, 11_500_000L};
    private static final String MAP = "leases";
    private static final VirtualClock TIME = new VirtualClock(1_700_000_000_000_000L);

    private static TestCluster cluster;
    private static List<HazelcastInstance> members;
    private static final List<Store> stores = new ArrayList<>();

    @BeforeAll
    static void startSkewedCluster() {
        cluster = new TestCluster();
        for (long skew : SKEW_MICROS) {
            cluster.startMember(() -> TIME.nowMicros() + skew, config -> config.addMapConfig(
                    new MapConfig(MAP).setBackupCount(1).setReadBackupData(true)));
        }
        members = cluster.members();
        List<HazelcastInstance> callers = new ArrayList<>(members);
        callers.add(cluster.startClient());
        for (HazelcastInstance caller : callers) {
            stores.add(HazelcastStore.builder(caller).mapName(MAP).timeout(Duration.ofSeconds(30)).build());
        }
    }

    @AfterAll
    static void stopCluster() {
        stores.forEach(Store::close);
        cluster.close();
    }

    @Test
    void leasesAndGiveBacksRunOnTheOwnersClockAndBackupsHoldItsBytes() {
        List<Limit> limits = List.of(
                Limit.of(Algorithms.FIXED_WINDOW, 50, Duration.ofSeconds(10)).named("window"),
                Limit.of(Algorithms.TOKEN_BUCKET, 5, Duration.ofSeconds(1)).withBurst(20).named("bucket"),
                Limit.of(Algorithms.GCRA, 30, Duration.ofSeconds(3)).named("gcra"));
        List<String> keys = new ArrayList<>();
        for (HazelcastInstance member : members) {
            keys.add(cluster.keyOwnedBy(member, "lease"));
        }
        Map<String, KeyState> references = new HashMap<>();
        Map<String, Lease> outstanding = new HashMap<>();
        Random random = new Random(23);
        int granted = 0;
        int givenBack = 0;
        for (int step = 0; step < 400; step++) {
            TIME.advanceMicros(random.nextInt(300_000));
            String key = keys.get(random.nextInt(keys.size()));
            Store store = stores.get(random.nextInt(stores.size()));
            KeyState reference = references.computeIfAbsent(key, k -> KeyState.empty());
            HazelcastInstance owner = cluster.owner(key);
            long ownerNow = MemberClock.nowMicros(owner);
            Lease last = outstanding.remove(key);
            int operation = random.nextInt(3);
            if (operation == 0 && last != null && last.tokens() > 0) {
                long unused = 1 + random.nextInt((int) last.tokens());
                store.giveBack(key, limits, last, unused).toCompletableFuture().join();
                reference.giveBack(limits, ownerNow, last.takenAtMicros(), unused);
                givenBack++;
            } else if (operation == 1) {
                Decision decision = store.tryAcquire(key, limits, 1).toCompletableFuture().join();
                assertThat(decision).as("step %d", step).isEqualTo(reference.tryAcquire(limits, ownerNow, 1));
            } else {
                long most = 1 + random.nextInt(15);
                Lease lease = store.lease(key, limits, most).toCompletableFuture().join();
                assertThat(lease).as("step %d: a lease of at most %d", step, most)
                        .isEqualTo(reference.lease(limits, ownerNow, most));
                outstanding.put(key, lease);
                granted += lease.tokens() > 0 ? 1 : 0;
            }
            byte[] owners = owner.<String, byte[]>getMap(MAP).get(key);
            for (HazelcastInstance member : members) {
                // With backups readable, the member holding the key's backup reads its own copy.
                assertThat(member.<String, byte[]>getMap(MAP).get(key)).as("what a member reads at step %d", step)
                        .isEqualTo(owners);
            }
        }
        assertThat(granted).as("leases that granted tokens").isPositive();
        assertThat(givenBack).as("give-backs").isPositive();
    }
}
