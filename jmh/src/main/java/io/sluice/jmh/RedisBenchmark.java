package io.sluice.jmh;

import io.sluice.testkit.redis.RedisFixture;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Param;

/**
 * One decision on Redis (a real {@code redis-server} on loopback, or a Redis Cluster of three),
 * started by the benchmark: Sluice's store with every algorithm, Bucket4j's Lettuce backend,
 * and a plain {@code EVALSHA} as the floor.
 */
public class RedisBenchmark extends DecisionBenchmark {

    /** The implementation measured. */
    @Param
    public RedisImpl impl;

    /** Standalone or cluster. */
    @Param
    public RedisTopology topology;

    private @Nullable RedisFixture redis;

    @Override
    protected Limiter createLimiter(LimitShape shape) {
        redis = topology.start();
        return impl.create(redis, shape);
    }

    @Override
    protected void stopServers() {
        if (redis != null) {
            redis.close();
        }
    }
}
