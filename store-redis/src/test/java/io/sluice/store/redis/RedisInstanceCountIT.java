package io.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisURI;
import io.sluice.api.InstanceCount;
import io.sluice.api.Store;
import io.sluice.testkit.InstanceCounts;
import io.sluice.testkit.VirtualClock;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Counting the stores that share a real {@code redis-server} (standalone, and a cluster of
 * three masters): each store built counts once, a closed one leaves at once, one that stops
 * beating is dropped {@value io.sluice.algorithms.instances.Heartbeat#BEATS_TO_EXPIRY}
 * intervals after its last beat on the store's (here virtual) clock.
 */
class RedisInstanceCountIT {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.standalone();

    @RegisterExtension
    static final RedisFixture cluster = RedisFixture.cluster();

    private static final Duration INTERVAL = Duration.ofMillis(50);

    private final VirtualClock clock = new VirtualClock(1_000_000_000_000L);

    @BeforeEach
    void flush() {
        redis.command(0, "FLUSHALL");
        for (int node = 0; node < 3; node++) {
            cluster.command(node, "FLUSHALL");
        }
    }

    private Store store() {
        return RedisStore.standalone(RedisURI.create(redis.uri())).commandTimeout(Duration.ofSeconds(5))
                .heartbeatInterval(INTERVAL).clockForTesting(clock).build();
    }

    @Test
    void twoStoresOnOneServerCountTwoAndOneThatClosesLeavesAtOnce() {
        try (Store first = store()) {
            try (Store second = store()) {
                InstanceCounts.await(first, 2, INTERVAL);
                InstanceCounts.await(second, 2, INTERVAL);
            }
            InstanceCounts.await(first, 1, INTERVAL);
        }
        assertThat(redis.command(0, "EXISTS", RedisKeys.INSTANCES)).as("the last store left").isEqualTo(0L);
    }

    @Test
    void aStoreThatStopsBeatingIsDroppedThreeIntervalsAfterItsLastBeat() {
        try (Store store = store()) {
            // An instance that beat at the clock's time and then crashed.
            long ttlMicros = 3 * INTERVAL.toNanos() / 1_000;
            redis.command(0, "ZADD", RedisKeys.INSTANCES, Long.toString(clock.nowMicros() + ttlMicros), "crashed");
            InstanceCounts.await(store, 2, INTERVAL);
            clock.advanceMicros(ttlMicros - 1);
            awaitBeatAt(clock.nowMicros() + ttlMicros);
            assertThat(count(store)).as("registered until its time to live ends").isEqualTo(OptionalInt.of(2));
            clock.advanceMicros(1);
            InstanceCounts.await(store, 1, INTERVAL);
        }
    }

    @Test
    void aStoreThatDoesNotCountInstancesWritesNothingAndAnswersNothing() {
        try (Store store = RedisStore.standalone(RedisURI.create(redis.uri())).countInstances(false).build()) {
            assertThat(count(store)).isEmpty();
            assertThat(redis.command(0, "EXISTS", RedisKeys.INSTANCES)).isEqualTo(0L);
        }
    }

    @Test
    void storesOnACLusterCountEachOther() {
        Supplier<Store> build = () -> RedisStore.cluster(RedisURI.create(cluster.uri()))
                .commandTimeout(Duration.ofSeconds(5)).heartbeatInterval(INTERVAL).build();
        try (Store first = build.get(); Store second = build.get(); Store third = build.get()) {
            InstanceCounts.await(first, 3, INTERVAL);
            InstanceCounts.await(third, 3, INTERVAL);
            second.close();
            InstanceCounts.await(first, 2, INTERVAL);
        }
    }

    private static OptionalInt count(Store store) {
        return ((InstanceCount) store).instances();
    }

    /** Waits (at most 30 s) for a beat that registered a store until {@code expiry}: one at the clock's time. */
    private static void awaitBeatAt(long expiry) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String score = Long.toString(expiry);
        while (((List<?>) redis.command(0, "ZRANGEBYSCORE", RedisKeys.INSTANCES, score, score)).isEmpty()) {
            assertThat(System.nanoTime() - deadline).as("waited 30 s for a beat").isNegative();
            pause();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(INTERVAL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
