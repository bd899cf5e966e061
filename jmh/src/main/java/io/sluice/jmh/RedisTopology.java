package io.sluice.jmh;

import io.sluice.testkit.redis.RedisFixture;

/** The Redis deployments benchmarked, started by the benchmark itself as real {@code redis-server} processes. */
public enum RedisTopology {
    /** One server. */
    STANDALONE,
    /** A Redis Cluster of three masters. */
    CLUSTER;

    /** Starts the servers of this topology. */
    RedisFixture start() {
        return (this == CLUSTER ? RedisFixture.cluster() : RedisFixture.standalone()).start();
    }
}
