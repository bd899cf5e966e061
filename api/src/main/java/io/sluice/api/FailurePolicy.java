package io.sluice.api;

/**
 * What a rate limiter answers when its store cannot decide (unreachable, timed out, or its
 * circuit breaker open). Set per {@link Limit} ({@link Limit#withFailurePolicy}) or for a
 * whole limiter ({@link RateLimiterBuilder#failurePolicy}); when the limits of one request
 * disagree, the strictest applies: {@code FAIL_CLOSED}, then {@code FALLBACK}, then
 * {@code FAIL_OPEN}.
 */
public enum FailurePolicy {
    /** Deny while the store is unavailable: for logins, SMS and costly operations. */
    FAIL_CLOSED,
    /**
     * Decide in this process while the store is unavailable, with each limit divided by the
     * number of instances that share the store, so that an outage neither admits everything
     * nor denies everyone. Needs {@code sluice-core}, which runs the in-process fallback.
     */
    FALLBACK,
    /** Admit while the store is unavailable: the product API stays up. */
    FAIL_OPEN
}
