package io.sluice.store.redis;

import io.lettuce.core.RedisURI;
import io.sluice.api.Store;
import io.sluice.testkit.PreviousFormat;
import io.sluice.testkit.StoreConformance;
import io.sluice.testkit.VirtualClock;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import java.util.Optional;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** The conformance kit on a real Redis Cluster of three masters, under the virtual clock and on Redis TIME. */
class RedisClusterConformanceIT extends StoreConformance {

    /** Final, so that the teardown closes it (a no-op when it never started) instead of hiding why it did not. */
    private static final RedisFixture redis = RedisFixture.cluster();
    private static RedisKeysProbe keys;

    @BeforeContainer
    static void startRedis() {
        redis.start();
        keys = RedisKeysProbe.cluster(redis.uri());
    }

    @AfterContainer
    static void stopRedis() {
        if (keys != null) {
            keys.close();
        }
        redis.close();
    }

    @Override
    protected Store createStore(VirtualClock clock) {
        // Reads key schema 1, as during a rolling upgrade, so that the kit checks the upgrade
        // (previousFormat); the store on Redis time has the default, which does not.
        return builder().clockForTesting(clock).readKeySchema1(true).build();
    }

    @Override
    protected Store createStore() {
        return builder().build();
    }

    @Override
    protected boolean holdsAnythingFor(Store store, String key) {
        return keys.holdsAnythingFor(key);
    }

    @Override
    protected Optional<PreviousFormat> previousFormat(Store store) {
        // Key schema v1 is the current one until v2 replaces it; then it is the previous one.
        return Optional.of(PreviousFormat.read(1, keys::writeVersion1));
    }

    private static RedisStore.Builder builder() {
        // Generous for a loaded CI machine; the default of a few ms is for production.
        return RedisStore.cluster(RedisURI.create(redis.uri())).commandTimeout(Duration.ofSeconds(10));
    }
}
