package io.sluice.jmh;

import io.lettuce.core.RedisURI;
import io.sluice.api.Store;
import io.sluice.store.redis.RedisStore;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import java.util.function.BiFunction;

/** What {@link RedisBenchmark} measures on the same Redis servers: Sluice's store with each algorithm, the peers, and the floor. */
public enum RedisImpl {
    SLUICE_TOKEN_BUCKET(sluice("token-bucket")),
    SLUICE_GCRA(sluice("gcra")),
    SLUICE_FIXED_WINDOW(sluice("fixed-window")),
    SLUICE_SLIDING_WINDOW_COUNTER(sluice("sliding-window-counter")),
    SLUICE_SLIDING_LOG(sluice("sliding-log")),
    /** Sluice's token bucket through its {@code PolicyLimiter}, as its servlet filter decides. */
    SLUICE_POLICY((redis, shape) -> new SluicePolicyLimiter(store(redis), shape)),
    BUCKET4J(Bucket4jRedisLimiter::new),
    EVALSHA(EvalshaFloorLimiter::new);

    private final BiFunction<RedisFixture, LimitShape, Limiter> factory;

    RedisImpl(BiFunction<RedisFixture, LimitShape, Limiter> factory) {
        this.factory = factory;
    }

    Limiter create(RedisFixture redis, LimitShape shape) {
        return factory.apply(redis, shape);
    }

    /**
     * Sluice's Redis store with its own client. The command timeout is raised from the
     * production default of a few milliseconds: the peers have none, and a timed-out
     * decision would fail the run rather than be measured.
     */
    private static BiFunction<RedisFixture, LimitShape, Limiter> sluice(String algorithm) {
        return (redis, shape) -> new SluiceLimiter(store(redis), algorithm, shape);
    }

    private static Store store(RedisFixture redis) {
        RedisURI uri = RedisURI.create(redis.uri());
        RedisStore.Builder store = redis.isCluster() ? RedisStore.cluster(uri) : RedisStore.standalone(uri);
        return store.commandTimeout(Duration.ofSeconds(10)).build();
    }
}
