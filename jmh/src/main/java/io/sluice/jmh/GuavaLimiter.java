package io.sluice.jmh;

import com.google.common.util.concurrent.RateLimiter;
import java.util.List;

/**
 * Guava's {@code RateLimiter} (smooth, at most one second of stored permits), one per key
 * and limit, asked without waiting. Several limits are asked in turn, not atomically, as for
 * {@link Resilience4jLimiter}.
 */
final class GuavaLimiter implements Limiter {

    private final PerKey<List<RateLimiter>> limiters;

    GuavaLimiter(LimitShape shape) {
        this.limiters = new PerKey<>(shape, key -> shape.specs().stream()
                .map(spec -> RateLimiter.create(spec.permits() * 1e9 / spec.period().toNanos()))
                .toList());
    }

    @Override
    public boolean tryAcquire(String key, long cost) {
        int permits = Math.toIntExact(cost);
        for (RateLimiter limiter : limiters.get(key)) {
            if (!limiter.tryAcquire(permits)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        limiters.clear();
    }
}
