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
import org.jspecify.annotations.Nullable;

/**
 * The conformance kit on a real Redis of the kind a subclass names ({@link #newRedis}), under
 * the virtual clock and on Redis TIME: started on first use, stopped once the subclass's tests
 * are done.
 */
abstract class RedisConformance extends StoreConformance {

    /** The Redis of the test class running and the kit's probe of it; {@code null} until first used. */
    private static @Nullable Running running;

    /** A started Redis and the kit's connection to it. */
    private record Running(RedisFixture redis, RedisKeysProbe keys) {
    }

    /** A fixture of the Redis to run the kit on, not started yet. */
    abstract RedisFixture newRedis();

    @AfterContainer
    static synchronized void stopRedis() {
        Running stopped = running;
        running = null;
        if (stopped != null) {
            stopped.keys().close();
            stopped.redis().close();
        }
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
        return running().keys().holdsAnythingFor(key);
    }

    @Override
    protected Optional<PreviousFormat> previousFormat(Store store) {
        // Key schema v1 is the current one until v2 replaces it; then it is the previous one.
        return Optional.of(PreviousFormat.read(1, running().keys()::writeVersion1));
    }

    private RedisStore.Builder builder() {
        RedisFixture redis = running().redis();
        RedisURI uri = RedisURI.create(redis.uri());
        RedisStore.Builder builder = redis.isCluster() ? RedisStore.cluster(uri) : RedisStore.standalone(uri);
        // Generous for a loaded CI machine; the default of a few ms is for production.
        return builder.commandTimeout(Duration.ofSeconds(10));
    }

    private Running running() {
        synchronized (RedisConformance.class) {
            Running current = running;
            if (current == null) {
                // start() stops what it started when it fails.
                RedisFixture redis = newRedis().start();
                try {
                    current = new Running(redis, redis.isCluster() ? RedisKeysProbe.cluster(redis.uri())
                            : RedisKeysProbe.standalone(redis.uri()));
                } catch (RuntimeException e) {
                    redis.close();
                    throw e;
                }
                running = current;
            }
            return current;
        }
    }
}
