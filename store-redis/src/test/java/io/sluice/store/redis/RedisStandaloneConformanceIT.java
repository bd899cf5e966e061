package io.sluice.store.redis;

import io.sluice.testkit.redis.RedisFixture;

/** The conformance kit on one real Redis server, under the virtual clock and on Redis TIME. */
class RedisStandaloneConformanceIT extends RedisConformance {

    @Override
    RedisFixture newRedis() {
        return RedisFixture.standalone();
    }
}
