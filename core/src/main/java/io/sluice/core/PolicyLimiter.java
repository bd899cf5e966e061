package io.sluice.core;

import java.util.concurrent.CompletionStage;

/**
 * Decides API requests by a {@link PolicyConfig}: it finds the limits that apply to the
 * caller's tier (or address) and the endpoint, charges the endpoint's cost against all of
 * them at once, and reports the binding limit.
 *
 * <pre>{@code
 * try (ReloadingPolicyConfig config = ReloadingPolicyConfig.watch(Path.of("sluice.yaml"))) {
 *     PolicyLimiter limiter = PolicyLimiter.builder().config(config).store(store).build();
 *     PolicyDecision decision = limiter.decide(ApiRequest.of(apiKey, remoteAddress, "POST", "/v1/reports"));
 *     if (!decision.allowed()) { ... 429 ... }
 * }
 * }</pre>
 *
 * <p>Implementations are thread-safe. Every request is decided on one configuration from
 * start to end, even when a reload swaps in another meanwhile. Rejection and store failures
 * are decisions, never exceptions.
 */
public interface PolicyLimiter extends AutoCloseable {

    /** Creates a builder. */
    static PolicyLimiterBuilder builder() {
        return new PolicyLimiterBuilder();
    }

    /** Decides a request, waiting for the store. */
    PolicyDecision decide(ApiRequest request);

    /** Decides a request without blocking; the stage never completes exceptionally. */
    CompletionStage<PolicyDecision> decideAsync(ApiRequest request);

    /**
     * Ends the limiter, for a graceful shutdown once the requests in flight are decided: gives
     * the unused tokens of its leases back to the store and frees its own state. The store,
     * which you passed to the builder, stays open: close it after this.
     */
    @Override
    void close();
}
