package io.sluice.jmh;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConfigurationBuilder;

/** The Bucket4j bucket of a limit shape: one greedy-refill bandwidth per limit, all checked together. */
final class Bucket4jConfigurations {

    private Bucket4jConfigurations() {
    }

    static BucketConfiguration of(LimitShape shape) {
        ConfigurationBuilder builder = BucketConfiguration.builder();
        for (LimitShape.Spec spec : shape.specs()) {
            builder.addLimit(limit -> limit.capacity(spec.permits())
                    .refillGreedy(spec.permits(), spec.period()).id(spec.name()));
        }
        return builder.build();
    }
}
