package io.sluice.core;

import io.lettuce.core.RedisURI;
import io.sluice.api.Store;
import io.sluice.store.redis.RedisStore;
import io.sluice.testkit.VirtualClock;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** All-or-nothing across the limits of a request on a Redis Cluster: one script per request, on one node. */
class AllOrNothingRedisIT extends AllOrNothingContract {

    /** Final, so that the teardown closes it (a no-op when it never started) instead of hiding why it did not. */
    private static final RedisFixture redis = RedisFixture.cluster();

    @BeforeContainer
    static void startRedis() {
        redis.start();
    }

    @AfterContainer
    static void stopRedis() {
        redis.close();
    }

    @Override
    protected Store createStore(VirtualClock clock) {
        // A generous timeout: the build shares two cores with other builds.
        return RedisStore.cluster(RedisURI.create(redis.uri())).commandTimeout(Duration.ofSeconds(10))
                .clockForTesting(clock).build();
    }
}
