/**
 * What HTTP clients see of a rate limit: 429 and 503 responses with an
 * {@code application/problem+json} body (RFC 9457), {@code Retry-After}, the IETF
 * {@code RateLimit-Policy} and {@code RateLimit} fields (and the older {@code X-RateLimit-*}
 * family on request), the caller's identity (API key, client address behind trusted proxies),
 * and a Jakarta Servlet filter that applies it all in any servlet container.
 *
 * <p>{@link io.sluice.http.HttpRateLimiter} is the container-neutral part: a servlet filter, the
 * {@code sluice gateway}'s Jetty handler or any other server adapts its request to
 * {@link io.sluice.http.HttpRequestView} and writes the {@link io.sluice.http.HttpVerdict} back.
 */
package io.sluice.http;
