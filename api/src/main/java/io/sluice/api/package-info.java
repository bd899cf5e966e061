/**
 * The public surface of Sluice: {@link io.sluice.api.RateLimiter} and its
 * {@link io.sluice.api.RateLimiterBuilder builder}, {@link io.sluice.api.Limit} and
 * {@link io.sluice.api.Decision}, and the two service-provider interfaces,
 * {@link io.sluice.api.Algorithm} and {@link io.sluice.api.Store}.
 *
 * <p>Time is an integer count of microseconds everywhere below the public
 * {@link java.time.Duration} accessors, and token amounts are integers, so that every
 * store (Java or Lua) computes bit-identical answers.
 */
package io.sluice.api;
