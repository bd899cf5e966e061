package io.sluice.jmh;

import io.lettuce.core.RedisURI;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.Store;
import io.sluice.core.StoreGuard;
import io.sluice.store.redis.RedisStore;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The sliding log on Redis with a long log: one hot key limited to {@code permits} per
 * second, so the log holds up to that many entries, and almost every decision after the
 * first second is a denial (an abusive client). Issue 10 requires that a decision's cost does
 * not grow with the log; compare the {@code permits} values of one run, and the token bucket
 * on the same key and limit, whose state is the same size at any rate. Run with plain JMH
 * ({@code org.openjdk.jmh.Main RedisSlidingLogBenchmark}), see docs/benchmarks.md.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 1, time = 3)
@Measurement(iterations = 1, time = 5)
@Fork(1)
public class RedisSlidingLogBenchmark {

    private static final String HOT_KEY = "hot-key";

    /** The limit's permits per second: the length of a full log. */
    @Param({"1000", "10000"})
    public long permits;

    /** The algorithm, by name: the sliding log, and the token bucket as the reference of the same run. */
    @Param({"sliding-log", "token-bucket"})
    public String algorithm;

    private @Nullable RedisFixture redis;
    private @Nullable Store store;
    private RateLimiter limiter;

    /** Starts a standalone Redis and a limiter of one sliding-log limit on it. */
    @Setup(Level.Trial)
    public void start() {
        redis = RedisTopology.STANDALONE.start();
        store = RedisStore.standalone(RedisURI.create(redis.uri())).commandTimeout(Duration.ofSeconds(10)).build();
        // As SluiceLimiter: the timeout raised, no block cache, so that every decision is the store's.
        limiter = RateLimiter.builder().store(store)
                .layer(StoreGuard.custom().timeout(Duration.ofSeconds(10)).blockCacheSize(0).build())
                .limit(Limit.of(Algorithms.byName(algorithm), permits, Duration.ofSeconds(1)).named("per-second"))
                .build();
    }

    /** Closes the store, then stops the server. */
    @TearDown(Level.Trial)
    public void stop() {
        try {
            if (store != null) {
                store.close();
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
    }

    /** One decision on the hot key; a store failure fails the run. */
    @Benchmark
    public boolean decide() {
        Decision decision = limiter.decide(HOT_KEY, 1);
        if (decision.reason() == Decision.Reason.STORE_UNAVAILABLE) {
            throw new IllegalStateException("store unavailable during the benchmark: " + decision);
        }
        return decision.allowed();
    }
}
