package io.sluice.api;

/** What a rate limiter answers when its store cannot decide (unreachable, timed out). */
public enum FailurePolicy {
    /** Deny while the store is unavailable: for logins, SMS and costly operations. */
    FAIL_CLOSED,
    /** Admit while the store is unavailable: the product API stays up. */
    FAIL_OPEN
}
