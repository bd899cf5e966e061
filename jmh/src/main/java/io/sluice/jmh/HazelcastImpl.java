package io.sluice.jmh;

import io.sluice.api.Store;
import io.sluice.store.hazelcast.HazelcastStore;
import java.time.Duration;
import java.util.function.BiFunction;

/** What {@link HazelcastBenchmark} measures on the same cluster: Sluice's store with each algorithm, Bucket4j, and the floor. */
public enum HazelcastImpl {
    SLUICE_TOKEN_BUCKET(sluice("token-bucket")),
    SLUICE_GCRA(sluice("gcra")),
    SLUICE_FIXED_WINDOW(sluice("fixed-window")),
    SLUICE_SLIDING_WINDOW_COUNTER(sluice("sliding-window-counter")),
    SLUICE_SLIDING_LOG(sluice("sliding-log")),
    /** Sluice's token bucket through {@code RateLimiter.decideAsync}, its stage waited for: the gateway's path. */
    SLUICE_ASYNC((cluster, shape) -> new SluiceLimiter(store(cluster), "token-bucket", shape, true)),
    /** Sluice's token bucket through its {@code PolicyLimiter}, as its servlet filter decides. */
    SLUICE_POLICY((cluster, shape) -> new SluicePolicyLimiter(store(cluster), shape)),
    BUCKET4J(Bucket4jHazelcastLimiter::new),
    ENTRY_PROCESSOR(EntryProcessorFloorLimiter::new);

    private final BiFunction<HazelcastCluster, LimitShape, Limiter> factory;

    HazelcastImpl(BiFunction<HazelcastCluster, LimitShape, Limiter> factory) {
        this.factory = factory;
    }

    Limiter create(HazelcastCluster cluster, LimitShape shape) {
        return factory.apply(cluster, shape);
    }

    /** Sluice's Hazelcast store on the caller's member, its timeout raised as for Redis (the peers have none). */
    private static BiFunction<HazelcastCluster, LimitShape, Limiter> sluice(String algorithm) {
        return (cluster, shape) -> new SluiceLimiter(store(cluster), algorithm, shape);
    }

    private static Store store(HazelcastCluster cluster) {
        return HazelcastStore.builder(cluster.caller()).mapName("sluice-jmh-sluice").timeout(Duration.ofSeconds(10))
                .build();
    }
}
