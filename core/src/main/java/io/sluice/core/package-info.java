/**
 * The engine: the layer in front of every store, and policies (which limits apply to an API
 * request, from a YAML file that reloads without a restart).
 *
 * <p>{@link io.sluice.core.StoreGuard} is the one request path of both front doors
 * ({@link io.sluice.api.RateLimiter} finds it through {@link java.util.ServiceLoader}): a block
 * cache, a circuit breaker and a timeout around each store call, each limit's failure policy
 * (with an in-process fallback) when the store cannot decide, and Micrometer meters. See
 * docs/architecture.md and docs/operations.md.
 *
 * <p>{@link io.sluice.core.PolicyConfig} reads and checks a policy file (tiers of API keys,
 * anonymous callers per IP address, endpoints with a cost and limits of their own);
 * {@link io.sluice.core.ReloadingPolicyConfig} swaps in a changed file atomically;
 * {@link io.sluice.core.PolicyLimiter} decides an {@link io.sluice.core.ApiRequest} on a
 * store and answers a {@link io.sluice.core.PolicyDecision}; a
 * {@link io.sluice.core.TierResolver} can take API keys' tiers from elsewhere, such as a
 * database. The file format is documented in docs/configuration.md.
 */
package io.sluice.core;
