package io.sluice.jmh;

import com.hazelcast.map.IMap;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import java.time.Duration;

/**
 * Bucket4j's Hazelcast backend (8.15.0, its last release for Hazelcast, on core 8.16.1): the
 * entry-processor proxy manager with Bucket4j's custom serializers, keys expiring once full.
 */
final class Bucket4jHazelcastLimiter implements Limiter {

    private final IMap<String, byte[]> map;
    private final ProxyManager<String> buckets;
    private final BucketConfiguration configuration;

    Bucket4jHazelcastLimiter(HazelcastCluster cluster, LimitShape shape) {
        this.map = cluster.caller().getMap("sluice-jmh-bucket4j");
        this.buckets = Bucket4jHazelcast.entryProcessorBasedBuilder(map)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(1)))
                .build();
        this.configuration = Bucket4jConfigurations.of(shape);
    }

    @Override
    public boolean tryAcquire(String key, long cost) {
        return buckets.getProxy(key, () -> configuration).tryConsume(cost);
    }

    @Override
    public void close() {
        map.destroy();
    }
}
