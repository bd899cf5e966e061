package io.sluice.jmh;

import com.hazelcast.map.IMap;

/**
 * The floor of a Hazelcast decision: one {@code executeOnKey} of {@link TokenBucketFloorProcessor}.
 * Like the Redis floor it enforces only the shape's first limit.
 */
final class EntryProcessorFloorLimiter implements Limiter {

    private final IMap<String, long[]> buckets;
    private final TokenBucketFloorProcessor takeOne;

    EntryProcessorFloorLimiter(HazelcastCluster cluster, LimitShape shape) {
        this.buckets = cluster.caller().getMap("sluice-jmh-floor");
        LimitShape.Spec limit = shape.specs().get(0);
        long periodMicros = limit.period().toNanos() / 1_000;
        this.takeOne = new TokenBucketFloorProcessor(limit.permits(),
                (periodMicros + limit.permits() - 1) / limit.permits(), 1);
    }

    @Override
    public boolean tryAcquire(String key, long cost) {
        if (cost != 1) {
            throw new IllegalArgumentException("the floor takes one token per request: " + cost);
        }
        return buckets.executeOnKey(key, takeOne);
    }

    @Override
    public void close() {
        buckets.destroy();
    }
}
