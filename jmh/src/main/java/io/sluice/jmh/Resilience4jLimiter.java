package io.sluice.jmh;

import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import java.time.Duration;
import java.util.List;

/**
 * Resilience4j's {@code AtomicRateLimiter} (permits per refresh period, no waiting), one per
 * key and limit. It has no multi-limit check: for several limits the limiters are asked in
 * turn, as a user composing them would, which is not atomic (a later denial leaves the
 * earlier limits charged).
 */
final class Resilience4jLimiter implements Limiter {

    private final PerKey<List<RateLimiter>> limiters;

    Resilience4jLimiter(LimitShape shape) {
        List<RateLimiterConfig> configs = shape.specs().stream()
                .map(spec -> RateLimiterConfig.custom()
                        .limitForPeriod(Math.toIntExact(spec.permits()))
                        .limitRefreshPeriod(spec.period())
                        .timeoutDuration(Duration.ZERO)
                        .build())
                .toList();
        this.limiters = new PerKey<>(shape, key -> configs.stream()
                .map(config -> RateLimiter.of(key, config)).toList());
    }

    @Override
    public boolean tryAcquire(String key, long cost) {
        int permits = Math.toIntExact(cost);
        for (RateLimiter limiter : limiters.get(key)) {
            if (!limiter.acquirePermission(permits)) {
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
