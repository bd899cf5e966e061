package io.sluice.jmh;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.local.LocalBucketBuilder;

/** Bucket4j's in-process bucket (lock-free), one per key, every limit of the shape a bandwidth of it. */
final class Bucket4jLocalLimiter implements Limiter {

    private final PerKey<Bucket> buckets;

    Bucket4jLocalLimiter(LimitShape shape) {
        this.buckets = new PerKey<>(shape, key -> {
            LocalBucketBuilder builder = Bucket.builder();
            for (LimitShape.Spec spec : shape.specs()) {
                builder.addLimit(limit -> limit.capacity(spec.permits())
                        .refillGreedy(spec.permits(), spec.period()).id(spec.name()));
            }
            return builder.build();
        });
    }

    @Override
    public boolean tryAcquire(String key, long cost) {
        return buckets.get(key).tryConsume(cost);
    }

    @Override
    public void close() {
        buckets.clear();
    }
}
