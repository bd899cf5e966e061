package io.sluice.jmh;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.RateLimiterBuilder;
import io.sluice.api.Store;
import io.sluice.core.StoreGuard;
import java.time.Duration;
import java.util.List;

/**
 * Sluice as a user runs it: a {@link RateLimiter} with the shape's limits on one store, deciding
 * with {@link RateLimiter#decide} or, for the path of the gateway's handler, with
 * {@link RateLimiter#decideAsync}, whose stage the benchmark's thread waits for.
 */
final class SluiceLimiter implements Limiter {

    private final Store store;
    private final RateLimiter limiter;
    private final boolean async;

    /**
     * A limiter on {@code store} whose limits use {@code algorithm} (by name, such as
     * {@code token-bucket}), deciding with {@link RateLimiter#decide}; it closes the store when closed.
     */
    SluiceLimiter(Store store, String algorithm, LimitShape shape) {
        this(store, algorithm, shape, false);
    }

    /** As {@link #SluiceLimiter(Store, String, LimitShape)}, deciding with {@code decideAsync} when {@code async}. */
    SluiceLimiter(Store store, String algorithm, LimitShape shape, boolean async) {
        this.store = store;
        this.async = async;
        // The request path of every RateLimiter, with a timeout as long as the stores' here (an overloaded
        // machine must not end a run) and no block cache, so that every decision is the store's:
        // GuardBenchmark measures the cache.
        RateLimiterBuilder builder = RateLimiter.builder().store(store)
                .layer(StoreGuard.custom().timeout(Duration.ofSeconds(10)).blockCacheSize(0).build());
        limits(algorithm, shape).forEach(builder::limit);
        this.limiter = builder.build();
    }

    static List<Limit> limits(String algorithm, LimitShape shape) {
        return shape.specs().stream()
                .map(spec -> Limit.of(spec.fixedWindow() ? Algorithms.FIXED_WINDOW : Algorithms.byName(algorithm),
                        spec.permits(), spec.period()).named(spec.name()))
                .toList();
    }

    @Override
    public boolean tryAcquire(String key, long cost) {
        Decision decision = async ? limiter.decideAsync(key, cost).toCompletableFuture().join()
                : limiter.decide(key, cost);
        if (decision.reason() == Decision.Reason.STORE_UNAVAILABLE) {
            // A failing store answers fast; counting that as a decision would flatter the store.
            // The limiter keeps the failure to itself: ask the store once more to report why.
            Throwable cause = null;
            try {
                store.tryAcquire(key, limiter.limits(), cost).toCompletableFuture().join();
            } catch (RuntimeException e) {
                cause = e.getCause() != null ? e.getCause() : e;
            }
            throw new IllegalStateException("store unavailable during the benchmark: " + decision, cause);
        }
        return decision.allowed();
    }

    @Override
    public void close() {
        store.close();
    }
}
