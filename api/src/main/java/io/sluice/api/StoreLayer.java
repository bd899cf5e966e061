package io.sluice.api;

/**
 * What every request passes through on its way to a store: timeouts, a circuit breaker, the
 * {@linkplain FailurePolicy failure policy} with its in-process fallback, the block cache and
 * metrics. A {@link RateLimiterBuilder} wraps its store with the layer it is given, else with
 * the one found through {@link java.util.ServiceLoader}; {@code sluice-core} provides it
 * ({@code io.sluice.core.StoreGuard}), and its policy limiter passes through the same layer.
 */
public interface StoreLayer {

    /**
     * Wraps {@code store}. The returned store answers a store failure with a decision
     * ({@link Decision.Reason#STORE_UNAVAILABLE} or {@link Decision.Reason#FALLBACK}, by the
     * limits' failure policies) instead of failing, counts and logs it; closing it closes
     * {@code store}.
     */
    Store wrap(Store store);
}
