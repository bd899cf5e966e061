package io.sluice.jmh;

import io.sluice.api.Store;
import io.sluice.store.ignite.IgniteStore;
import java.time.Duration;
import java.util.function.BiFunction;

/**
 * What {@link IgniteBenchmark} measures: Sluice's Ignite store with each algorithm. No peer
 * is measured on Ignite (Bucket4j's Ignite backend is not among the peers of this project).
 */
public enum IgniteImpl {
    SLUICE_TOKEN_BUCKET(sluice("token-bucket")),
    SLUICE_GCRA(sluice("gcra")),
    SLUICE_FIXED_WINDOW(sluice("fixed-window")),
    SLUICE_SLIDING_WINDOW_COUNTER(sluice("sliding-window-counter")),
    SLUICE_SLIDING_LOG(sluice("sliding-log")),
    /** Sluice's token bucket through {@code RateLimiter.decideAsync}, its stage waited for: the gateway's path. */
    SLUICE_ASYNC((cluster, shape) -> new SluiceLimiter(store(cluster), "token-bucket", shape, true)),
    /** Sluice's token bucket through its {@code PolicyLimiter}, as its servlet filter decides. */
    SLUICE_POLICY((cluster, shape) -> new SluicePolicyLimiter(store(cluster), shape)),
    /** The floor: one blocking {@code invoke} of a minimal token bucket. */
    INVOKE(InvokeFloorLimiter::new);

    /** The cache every implementation uses. */
    static final String CACHE = "sluice-jmh";

    private final BiFunction<IgniteCluster, LimitShape, Limiter> factory;

    IgniteImpl(BiFunction<IgniteCluster, LimitShape, Limiter> factory) {
        this.factory = factory;
    }

    Limiter create(IgniteCluster cluster, LimitShape shape) {
        return factory.apply(cluster, shape);
    }

    /** Sluice's Ignite store on the caller's node, one backup, its timeout raised as for Redis. */
    private static BiFunction<IgniteCluster, LimitShape, Limiter> sluice(String algorithm) {
        return (cluster, shape) -> new SluiceLimiter(store(cluster), algorithm, shape);
    }

    private static Store store(IgniteCluster cluster) {
        return IgniteStore.builder(cluster.caller()).cacheName(CACHE).backups(1).timeout(Duration.ofSeconds(10))
                .build();
    }
}
