/**
 * Policies: which limits apply to an API request, from a YAML file that reloads without a
 * restart.
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
