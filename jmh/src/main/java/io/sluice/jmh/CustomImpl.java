package io.sluice.jmh;

import io.sluice.api.StoreProvider;
import io.sluice.store.local.LocalStore;
import java.util.function.BiFunction;

/**
 * What {@link CustomBenchmark} measures: a store of your own with every algorithm, beside
 * Sluice's local store and the in-process peers.
 */
public enum CustomImpl {
    CUSTOM_TOKEN_BUCKET(custom("token-bucket")),
    CUSTOM_GCRA(custom("gcra")),
    CUSTOM_FIXED_WINDOW(custom("fixed-window")),
    CUSTOM_SLIDING_WINDOW_COUNTER(custom("sliding-window-counter")),
    CUSTOM_SLIDING_LOG(custom("sliding-log")),
    SLUICE_TOKEN_BUCKET((provider, shape) -> new SluiceLimiter(LocalStore.builder().build(), "token-bucket", shape)),
    SLUICE_GCRA((provider, shape) -> new SluiceLimiter(LocalStore.builder().build(), "gcra", shape)),
    BUCKET4J((provider, shape) -> new Bucket4jLocalLimiter(shape)),
    RESILIENCE4J((provider, shape) -> new Resilience4jLimiter(shape)),
    GUAVA((provider, shape) -> new GuavaLimiter(shape));

    /** How the report tells the custom store's rows from Sluice's and the peers'. */
    static final String PREFIX = "CUSTOM_";

    private final BiFunction<StoreProvider, LimitShape, Limiter> factory;

    CustomImpl(BiFunction<StoreProvider, LimitShape, Limiter> factory) {
        this.factory = factory;
    }

    Limiter create(StoreProvider provider, LimitShape shape) {
        return factory.apply(provider, shape);
    }

    private static BiFunction<StoreProvider, LimitShape, Limiter> custom(String algorithm) {
        return (provider, shape) -> new SluiceLimiter(provider.create(), algorithm, shape);
    }
}
