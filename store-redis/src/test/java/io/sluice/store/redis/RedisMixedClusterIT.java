package io.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.testkit.VirtualClock;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Redis store on a cluster halfway through an upgrade: one master on Redis 6.2, two on
 * Redis 7 or later. Functions are not on every master, so the store must run scripts
 * ({@code EVALSHA}) everywhere, load no library, and decide right on every master's slots.
 */
class RedisMixedClusterIT {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.mixedCluster();

    private static final int MASTERS = 3;
    private static final List<Limit> LIMITS = List.of(
            Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1)).named("per-second"),
            Limit.of(Algorithms.FIXED_WINDOW, 1_000_000, Duration.ofDays(1)).named("per-day"),
            Limit.of(Algorithms.SLIDING_LOG, 5, Duration.ofMinutes(1)).named("endpoint"));

    private final VirtualClock clock = new VirtualClock(1_764_000_000_000_000L);

    @BeforeEach
    void twoVersionsAndEmptyMasters() {
        assumeTrue(LettuceStore.majorVersion("redis_version:" + redis.version()) >= 7,
                "a mixed cluster needs Redis 7 or later besides the bundled " + redis.version(0)
                        + ", and this system's redis-server is " + redis.version());
        for (int node = 0; node < MASTERS; node++) {
            redis.command(node, "FLUSHALL");
            redis.command(node, "SCRIPT", "FLUSH");
            redis.command(node, "CONFIG", "RESETSTAT");
        }
        for (int node = 1; node < MASTERS; node++) {
            redis.command(node, "FUNCTION", "FLUSH");
        }
    }

    @Test
    void everyMasterRunsTheScriptsAndDecidesItsOwnSlots() {
        List<List<String>> identitiesByMaster = identitiesOfEverySlotByMaster();
        try (Store store = RedisStore.cluster(RedisURI.create(redis.uri())).commandTimeout(Duration.ofSeconds(5))
                .clockForTesting(clock).build()) {
            for (int master = 0; master < MASTERS; master++) {
                List<CompletableFuture<Decision>> decisions = new ArrayList<>();
                for (String identity : identitiesByMaster.get(master)) {
                    decisions.add(store.tryAcquire(identity, LIMITS, 2).toCompletableFuture());
                }
                for (CompletableFuture<Decision> decision : decisions) {
                    assertThat(decision.join().allowed()).as("master " + master).isTrue();
                    assertThat(decision.join().remaining()).as("master " + master).isEqualTo(3);
                }
                // The sliding log's 5 a minute: 3 more admitted, the fourth denied until the first two expire.
                String identity = identitiesByMaster.get(master).get(0);
                assertThat(store.tryAcquire(identity, LIMITS, 3).toCompletableFuture().join().allowed()).isTrue();
                Decision denied = store.tryAcquire(identity, LIMITS, 1).toCompletableFuture().join();
                assertThat(denied.allowed()).as("master " + master).isFalse();
                assertThat(denied.binding().name()).isEqualTo("endpoint");
                assertThat(denied.retryAfter()).hasValueSatisfying(retry -> assertThat(retry)
                        .isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1)));

                List<Limit> leasable = LIMITS.subList(0, 2);
                Lease lease = store.lease(identitiesByMaster.get(master).get(1), leasable, 1_000)
                        .toCompletableFuture().join();
                assertThat(lease.tokens()).as("master " + master).isEqualTo(98);
                store.giveBack(identitiesByMaster.get(master).get(1), leasable, lease, 8).toCompletableFuture().join();
                assertThat(store.lease(identitiesByMaster.get(master).get(1), leasable, 1_000).toCompletableFuture()
                        .join().tokens()).as("given back, leased again").isEqualTo(8);
            }
        }
        for (int master = 0; master < MASTERS; master++) {
            String stats = (String) redis.command(master, "INFO", "commandstats");
            // Each slot's decision, the two more, a lease, a give-back and a lease; and the master of
            // build()'s warm-up key its calls without limits.
            assertThat(calls(stats, "evalsha")).as("EVALSHA on master " + master + " (" + redis.version(master) + ")")
                    .isGreaterThanOrEqualTo(identitiesByMaster.get(master).size() + 5);
            assertThat(calls(stats, "fcall")).as("FCALL on master " + master).isZero();
            assertThat((Long) redis.command(master, "DBSIZE")).as("keys on master " + master)
                    .isGreaterThanOrEqualTo(identitiesByMaster.get(master).size());
        }
        for (int master = 1; master < MASTERS; master++) {
            assertThat((List<?>) redis.command(master, "FUNCTION", "LIST")).as("libraries on master " + master).isEmpty();
        }
    }

    /**
     * One identity whose key is in each of the 16,384 slots, by the master that serves the slot:
     * the fixture gives master i the slots from 16384 * i / 3 up to 16384 * (i + 1) / 3.
     */
    private static List<List<String>> identitiesOfEverySlotByMaster() {
        String[] identityOfSlot = new String[SlotHash.SLOT_COUNT];
        int covered = 0;
        for (int i = 0; covered < SlotHash.SLOT_COUNT; i++) {
            String identity = "mixed-" + i;
            int slot = SlotHash.getSlot(RedisKeys.key(identity));
            if (identityOfSlot[slot] == null) {
                identityOfSlot[slot] = identity;
                covered++;
            }
        }
        List<List<String>> byMaster = new ArrayList<>();
        for (int master = 0; master < MASTERS; master++) {
            byMaster.add(new ArrayList<>());
        }
        for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot++) {
            int master = MASTERS - 1;
            while (SlotHash.SLOT_COUNT * master / MASTERS > slot) {
                master--;
            }
            byMaster.get(master).add(identityOfSlot[slot]);
        }
        return byMaster;
    }

    /** The calls of a command since the last {@code CONFIG RESETSTAT}, from {@code INFO commandstats}. */
    private static long calls(String commandStats, String command) {
        Matcher matcher = Pattern.compile("cmdstat_" + command + ":calls=(\\d+)").matcher(commandStats);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }
}
