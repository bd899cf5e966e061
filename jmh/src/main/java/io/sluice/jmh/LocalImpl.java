package io.sluice.jmh;

import io.sluice.store.local.LocalStore;
import java.util.function.Function;

/** What {@link LocalBenchmark} measures in process: Sluice's local store with each algorithm, and the peers. */
public enum LocalImpl {
    SLUICE_TOKEN_BUCKET(sluice("token-bucket")),
    SLUICE_GCRA(sluice("gcra")),
    SLUICE_FIXED_WINDOW(sluice("fixed-window")),
    SLUICE_SLIDING_WINDOW_COUNTER(sluice("sliding-window-counter")),
    SLUICE_SLIDING_LOG(sluice("sliding-log")),
    BUCKET4J(Bucket4jLocalLimiter::new),
    RESILIENCE4J(Resilience4jLimiter::new),
    GUAVA(GuavaLimiter::new);

    private final Function<LimitShape, Limiter> factory;

    LocalImpl(Function<LimitShape, Limiter> factory) {
        this.factory = factory;
    }

    Limiter create(LimitShape shape) {
        return factory.apply(shape);
    }

    private static Function<LimitShape, Limiter> sluice(String algorithm) {
        return shape -> new SluiceLimiter(LocalStore.builder().build(), algorithm, shape);
    }
}
