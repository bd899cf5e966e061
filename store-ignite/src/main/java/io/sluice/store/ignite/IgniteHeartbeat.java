package io.sluice.store.ignite;

import io.sluice.algorithms.grid.GridRequest;
import io.sluice.algorithms.instances.Heartbeat;
import io.sluice.api.TimeSource;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.ignite.Ignite;
import org.apache.ignite.IgniteCache;
import org.apache.ignite.cache.CacheAtomicityMode;
import org.apache.ignite.cache.CacheMode;
import org.apache.ignite.cache.CacheWriteSynchronizationMode;
import org.apache.ignite.configuration.CacheConfiguration;
import org.jspecify.annotations.Nullable;

/**
 * The Ignite store's beat: an {@link InstanceBeat} on the one entry {@link #KEY} of the cache
 * {@code <cache name>}{@link #CACHE_SUFFIX} (atomic, partitioned, with the store's backups),
 * created by the first beat so that building a store does not wait for it. Only stores are
 * counted (on server or client nodes), never a node that only holds data.
 */
final class IgniteHeartbeat {

    /** The registry's cache is the store's cache's name followed by this. */
    static final String CACHE_SUFFIX = "-instances";
    /** The registry's key in that cache. */
    static final String KEY = "instances";

    private IgniteHeartbeat() {
    }

    /** Starts announcing a store of cache {@code cacheName}; {@code clockForTesting} stands in for the primary's clock. */
    static Heartbeat start(Ignite ignite, String cacheName, int backups, Duration interval,
                           @Nullable TimeSource clockForTesting) {
        CacheConfiguration<String, byte[]> registry = new CacheConfiguration<String, byte[]>(cacheName + CACHE_SUFFIX)
                .setCacheMode(CacheMode.PARTITIONED)
                .setAtomicityMode(CacheAtomicityMode.ATOMIC)
                .setWriteSynchronizationMode(CacheWriteSynchronizationMode.FULL_SYNC)
                .setBackups(backups)
                .setStatisticsEnabled(false);
        return Heartbeat.start("the Ignite cache '" + registry.getName() + "'", interval,
                (instanceId, ttlMicros, leave, timeout) -> {
                    long now = clockForTesting == null ? GridRequest.MEMBER_CLOCK : clockForTesting.nowMicros();
                    IgniteCache<String, byte[]> cache = ignite.cache(registry.getName());
                    if (cache == null) {
                        cache = ignite.getOrCreateCache(registry);
                    }
                    return cache.invokeAsync(KEY, new InstanceBeat(instanceId, ttlMicros, leave, now))
                            .get(timeout.toNanos(), TimeUnit.NANOSECONDS);
                });
    }
}
