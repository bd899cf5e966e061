package io.sluice.jmh;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;

/**
 * Bucket4j's Lettuce backend as its documentation sets it up: a compare-and-set proxy
 * manager on one shared connection, with keys expiring once their bucket is full again.
 */
final class Bucket4jRedisLimiter implements Limiter {

    private final AbstractRedisClient client;
    private final StatefulConnection<String, byte[]> connection;
    private final ProxyManager<String> buckets;
    private final BucketConfiguration configuration;

    Bucket4jRedisLimiter(RedisFixture redis, LimitShape shape) {
        RedisCodec<String, byte[]> codec = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);
        ExpirationAfterWriteStrategy expiry =
                ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(1));
        if (redis.isCluster()) {
            RedisClusterClient cluster = RedisClusterClient.create(redis.uri());
            StatefulRedisClusterConnection<String, byte[]> clusterConnection = cluster.connect(codec);
            this.client = cluster;
            this.connection = clusterConnection;
            this.buckets = Bucket4jLettuce.casBasedBuilder(clusterConnection).expirationAfterWrite(expiry).build();
        } else {
            RedisClient standalone = RedisClient.create(redis.uri());
            StatefulRedisConnection<String, byte[]> standaloneConnection = standalone.connect(codec);
            this.client = standalone;
            this.connection = standaloneConnection;
            this.buckets = Bucket4jLettuce.casBasedBuilder(standaloneConnection).expirationAfterWrite(expiry).build();
        }
        this.configuration = Bucket4jConfigurations.of(shape);
    }

    @Override
    public boolean tryAcquire(String key, long cost) {
        return buckets.getProxy(key, () -> configuration).tryConsume(cost);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
