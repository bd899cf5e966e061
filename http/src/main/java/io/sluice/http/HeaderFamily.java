package io.sluice.http;

/** A family of rate-limit response header fields; {@link HttpRateLimiter} emits those it is given. */
public enum HeaderFamily {

    /**
     * The IETF fields of draft-ietf-httpapi-ratelimit-headers-10, as RFC 9651 structured
     * fields: {@code RateLimit-Policy} lists every limit that applies to the request
     * ({@code "tier.pro.per-second";q=100;w=1}), {@code RateLimit} reports the binding one
     * ({@code "tier.pro.per-second";r=42;t=1}).
     */
    IETF,

    /**
     * The older, widespread {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and
     * {@code X-RateLimit-Reset} (seconds until the binding limit is fully reset), for clients
     * that read only those.
     */
    X_RATE_LIMIT
}
