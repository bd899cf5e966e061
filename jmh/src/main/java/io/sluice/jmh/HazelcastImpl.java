package io.sluice.jmh;

import java.util.function.BiFunction;

/** What {@link HazelcastBenchmark} measures on the same cluster: Bucket4j and the floor. */
public enum HazelcastImpl {
    BUCKET4J(Bucket4jHazelcastLimiter::new),
    ENTRY_PROCESSOR(EntryProcessorFloorLimiter::new);

    private final BiFunction<HazelcastCluster, LimitShape, Limiter> factory;

    HazelcastImpl(BiFunction<HazelcastCluster, LimitShape, Limiter> factory) {
        this.factory = factory;
    }

    Limiter create(HazelcastCluster cluster, LimitShape shape) {
        return factory.apply(cluster, shape);
    }
}
