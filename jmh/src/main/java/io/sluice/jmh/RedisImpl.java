package io.sluice.jmh;

import io.sluice.testkit.redis.RedisFixture;
import java.util.function.BiFunction;

/** What {@link RedisBenchmark} measures on the same Redis servers: Sluice's store with each algorithm, the peers, and the floor. */
public enum RedisImpl {
    BUCKET4J(Bucket4jRedisLimiter::new),
    EVALSHA(EvalshaFloorLimiter::new);

    private final BiFunction<RedisFixture, LimitShape, Limiter> factory;

    RedisImpl(BiFunction<RedisFixture, LimitShape, Limiter> factory) {
        this.factory = factory;
    }

    Limiter create(RedisFixture redis, LimitShape shape) {
        return factory.apply(redis, shape);
    }
}
