package io.sluice.store.redis;

import io.lettuce.core.RedisURI;
import io.sluice.api.Store;
import io.sluice.testkit.StoreConformance;
import io.sluice.testkit.VirtualClock;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** The conformance kit on a real Redis Cluster of three masters, under the virtual clock and on Redis TIME. */
class RedisClusterConformanceIT extends StoreConformance {

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
        return builder().clockForTesting(clock).build();
    }

    @Override
    protected Store createStore() {
        return builder().build();
    }

    private static RedisStore.Builder builder() {
        // Generous for a loaded CI machine; the default of a few ms is for production.
        return RedisStore.cluster(RedisURI.create(redis.uri())).commandTimeout(Duration.ofSeconds(10));
    }
}
