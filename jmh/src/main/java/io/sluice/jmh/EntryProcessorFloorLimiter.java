package io.sluice.jmh;

import com.hazelcast.map.IMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The floor of a Hazelcast decision: one {@code executeOnKey} of {@link TokenBucketFloorProcessor}.
 * Like the Redis floor it enforces only the shape's first limit.
 */
final class EntryProcessorFloorLimiter implements Limiter {

    private final IMap<String, long[]> buckets;
    private final long capacity;
    private final long microsPerToken;
    private final boolean submitted;

    EntryProcessorFloorLimiter(HazelcastCluster cluster, LimitShape shape) {
        this(cluster, shape, false);
    }

    /** With {@code submitted}, each call is a {@code submitToKey} whose future the caller waits for with a timeout. */
    EntryProcessorFloorLimiter(HazelcastCluster cluster, LimitShape shape, boolean submitted) {
        this.submitted = submitted;
        this.buckets = cluster.caller().getMap("sluice-jmh-floor");
        LimitShape.Spec limit = shape.specs().get(0);
        long periodMicros = limit.period().toNanos() / 1_000;
        this.capacity = limit.permits();
        this.microsPerToken = (periodMicros + limit.permits() - 1) / limit.permits();
    }

    @Override
    public boolean tryAcquire(String key, long cost) {
        if (cost != 1) {
            throw new IllegalArgumentException("the floor takes one token per request: " + cost);
        }
        // A processor per call, as Sluice and Bucket4j make: it remembers whether it wrote, and
        // a call on a key this member owns runs the very object.
        TokenBucketFloorProcessor takeOne = new TokenBucketFloorProcessor(capacity, microsPerToken, 1);
        if (!submitted) {
            return buckets.executeOnKey(key, takeOne);
        }
        try {
            return buckets.submitToKey(key, takeOne).toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the floor's call failed", e);
        }
    }

    @Override
    public void close() {
        buckets.destroy();
    }
}
