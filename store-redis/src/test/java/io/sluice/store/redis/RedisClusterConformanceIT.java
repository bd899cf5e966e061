package io.sluice.store.redis;

import io.sluice.testkit.redis.RedisFixture;

/** The conformance kit on a real Redis Cluster of three masters, under the virtual clock and on Redis TIME. */
class RedisClusterConformanceIT extends RedisConformance {

    @Override
    RedisFixture newRedis() {
        return RedisFixture.cluster();
    }
}
