package io.sluice.core;

import io.lettuce.core.RedisURI;
import io.sluice.api.Store;
import io.sluice.store.redis.RedisStore;
import io.sluice.testkit.VirtualClock;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The policy limiter on a Redis Cluster: a client's limits share a hash tag, so the limits
 * of one request are one script on one node, all-or-nothing; an endpoint's global limits
 * are a second call on another key, usually on another node.
 */
class PolicyLimiterRedisIT extends PolicyLimiterContract {

    @RegisterExtension
    static final RedisFixture REDIS = RedisFixture.cluster();

    @BeforeEach
    void emptyTheCluster() {
        for (int node = 0; node < REDIS.ports().size(); node++) {
            REDIS.command(node, "FLUSHALL");
        }
    }

    @Override
    protected Store createStore(VirtualClock clock) {
        // A generous timeout: the build shares two cores with other builds.
        return RedisStore.cluster(RedisURI.create(REDIS.uri())).commandTimeout(Duration.ofSeconds(10))
                .clockForTesting(clock).build();
    }
}
