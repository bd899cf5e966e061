package io.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisURI;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.testkit.VirtualClock;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Redis store's leasing on one real standalone server, on Redis {@code TIME}. */
class RedisLeaseIT {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.standalone();

    private static final List<Limit> MISSION = List.of(
            Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1)).named("per-second"),
            Limit.of(Algorithms.FIXED_WINDOW, 1_000_000, Duration.ofDays(1)).named("per-day"));

    private Store store;

    @BeforeEach
    void start() {
        redis.command(0, "FLUSHALL");
        store = RedisStore.standalone(RedisURI.create(redis.uri())).commandTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterEach
    void stop() {
        store.close();
    }

    @Test
    void oneCommandPerLeaseAndPerGiveBack() {
        store.lease("warm-up", MISSION, 10).toCompletableFuture().join();
        redis.command(0, "CONFIG", "RESETSTAT");

        for (int i = 0; i < 20; i++) {
            Lease lease = store.lease("client-" + (i % 4), MISSION, 10).toCompletableFuture().join();
            assertThat(lease.tokens()).isEqualTo(10);
            store.giveBack("client-" + (i % 4), MISSION, lease, 4).toCompletableFuture().join();
        }

        Map<String, Long> calls = commandCalls();
        assertThat(calls.get(scriptCommand())).isEqualTo(40);
        assertThat(calls).doesNotContainKeys("eval", "script", "function");
    }

    @Test
    void aLeaseTakesWhatTheLimitsHoldAndGivenBackTokensAreLeasedAgain() {
        VirtualClock clock = new VirtualClock(1_764_000_000_000_000L);
        try (Store virtual = RedisStore.standalone(RedisURI.create(redis.uri()))
                .commandTimeout(Duration.ofSeconds(5)).clockForTesting(clock).build()) {
            Lease first = virtual.lease("client", MISSION, 1_000).toCompletableFuture().join();
            assertThat(first.tokens()).isEqualTo(100);
            assertThat(first.takenAtMicros()).isEqualTo(clock.nowMicros());
            assertThat(first.decision().remaining()).isZero();
            Lease empty = virtual.lease("client", MISSION, 1_000).toCompletableFuture().join();
            assertThat(empty.tokens()).isZero();
            assertThat(empty.decision().retryAfter()).contains(Duration.ofMillis(10));

            clock.advanceMicros(50_000);
            virtual.giveBack("client", MISSION, first, 60).toCompletableFuture().join();

            // 5 refilled in 50 ms, and the 60 given back less those 5: without the lease the bucket
            // would not have refilled them.
            Lease again = virtual.lease("client", MISSION, 1_000).toCompletableFuture().join();
            assertThat(again.tokens()).isEqualTo(60);
            assertThat(again.decision().allowed()).isTrue();
        }
    }

    /** A flush of the scripts, or of the functions on Redis 7 and later, costs no failed lease or give-back. */
    @Test
    void aFlushCostsNoFailedLeaseOrGiveBack() {
        for (int round = 0; round < 3; round++) {
            flush();
            Lease lease = store.lease("flushed", MISSION, 5).toCompletableFuture().join();
            assertThat(lease.tokens()).isEqualTo(5);
            flush();
            store.giveBack("flushed", MISSION, lease, 5).toCompletableFuture().join();
        }
    }

    private static void flush() {
        redis.command(0, "SCRIPT", "FLUSH");
        if (!redis.version().startsWith("6.")) {
            redis.command(0, "FUNCTION", "FLUSH");
        }
    }

    /** The command of a lease or a give-back: {@code fcall} on Redis 7 and later, else {@code evalsha}. */
    private static String scriptCommand() {
        return redis.version().startsWith("6.") ? "evalsha" : "fcall";
    }

    @Test
    void badLeasesAreRefusedAtTheCallerNamingTheValue() {
        Limit log = Limit.of(Algorithms.SLIDING_LOG, 10, Duration.ofSeconds(1)).named("log");
        redis.command(0, "CONFIG", "RESETSTAT");

        assertThatThrownBy(() -> store.lease("k", List.of(log), 1).toCompletableFuture().join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sliding-log");
        assertThatThrownBy(() -> store.lease("k", MISSION, 0).toCompletableFuture().join())
                .hasCauseInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxTokens must be at least 1: 0");
        Lease lease = new Lease(3, 0, store.tryAcquire("k", MISSION, 1).toCompletableFuture().join());
        assertThatThrownBy(() -> store.giveBack("k", MISSION, lease, 4).toCompletableFuture().join())
                .hasCauseInstanceOf(IllegalArgumentException.class).hasMessageContaining("4 tokens of a lease of 3");
        assertThat(commandCalls().get(scriptCommand())).as("only the tryAcquire reached Redis").isEqualTo(1);
    }

    private static Map<String, Long> commandCalls() {
        String info = (String) redis.command(0, "INFO", "commandstats");
        Map<String, Long> calls = new HashMap<>();
        Matcher matcher = Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+)").matcher(info);
        while (matcher.find()) {
            calls.put(matcher.group(1), Long.parseLong(matcher.group(2)));
        }
        return calls;
    }
}
