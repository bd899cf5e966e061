package io.sluice.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link RateLimiter}: its limits, the store that keeps their state, what to do
 * when the store fails, and the {@link StoreLayer} every request passes through on its way
 * to the store. Not thread-safe; the limiter it builds is.
 */
public final class RateLimiterBuilder {

    private final List<Limit> limits = new ArrayList<>();
    private @Nullable Store store;
    private @Nullable StoreLayer layer;
    private FailurePolicy failurePolicy = FailurePolicy.FAIL_CLOSED;

    RateLimiterBuilder() {
    }

    /**
     * Adds a limit; every request is checked against all of them.
     *
     * @throws IllegalArgumentException when a limit with the same name was already added
     */
    public RateLimiterBuilder limit(Limit limit) {
        Objects.requireNonNull(limit, "limit");
        for (Limit existing : limits) {
            if (existing.name().equals(limit.name())) {
                throw new IllegalArgumentException("duplicate limit name: '" + limit.name() + "'");
            }
        }
        limits.add(limit);
        return this;
    }

    /**
     * The store that keeps the limits' state. When none is set, the embedded default
     * ({@code sluice-store-local}) is created through {@link StoreProvider}.
     */
    public RateLimiterBuilder store(Store store) {
        this.store = Objects.requireNonNull(store, "store");
        return this;
    }

    /**
     * What to answer when the store cannot decide, for the limits that have no
     * {@linkplain Limit#withFailurePolicy policy of their own}; {@link FailurePolicy#FAIL_CLOSED}
     * by default.
     */
    public RateLimiterBuilder failurePolicy(FailurePolicy failurePolicy) {
        this.failurePolicy = Objects.requireNonNull(failurePolicy, "failurePolicy");
        return this;
    }

    /**
     * The layer between the limiter and its store (timeouts, circuit breaker, fallback, block
     * cache, metrics), such as a configured {@code io.sluice.core.StoreGuard}. When none is
     * set, the one found through {@link java.util.ServiceLoader} is used: {@code sluice-core}'s
     * defaults when it is on the class path.
     */
    public RateLimiterBuilder layer(StoreLayer layer) {
        this.layer = Objects.requireNonNull(layer, "layer");
        return this;
    }

    /**
     * Builds the limiter.
     *
     * @throws IllegalStateException when no limit was added, no store was set and none is
     *     on the class path, or a limit falls back in-process and no layer is there to do it
     * @throws IllegalArgumentException naming the limit when the store cannot run its algorithm
     */
    public RateLimiter build() {
        if (limits.isEmpty()) {
            throw new IllegalStateException("a rate limiter needs at least one limit");
        }
        Store chosen = store != null ? store : embeddedStore();
        List<Limit> withPolicies = new ArrayList<>();
        for (Limit limit : limits) {
            if (!chosen.supports(limit.algorithm())) {
                throw new IllegalArgumentException("store " + chosen + " cannot run algorithm '"
                        + limit.algorithm().name() + "' (id " + limit.algorithm().id() + ") of limit '"
                        + limit.name() + "'");
            }
            // The layer reads each limit's policy; the limiter's applies to those without one.
            withPolicies.add(limit.failurePolicy().isPresent() ? limit : limit.withFailurePolicy(failurePolicy));
        }
        StoreLayer chosenLayer = layer != null ? layer
                : ServiceLoader.load(StoreLayer.class).findFirst().orElse(null);
        if (chosenLayer == null) {
            for (Limit limit : withPolicies) {
                if (limit.failurePolicy().orElseThrow() == FailurePolicy.FALLBACK) {
                    throw new IllegalStateException("limit '" + limit.name() + "' falls back in-process when the "
                            + "store fails, which sluice-core does: add it to the class path");
                }
            }
            return new StoreBackedRateLimiter(List.copyOf(withPolicies), chosen, failurePolicy);
        }
        return new StoreBackedRateLimiter(List.copyOf(withPolicies), chosenLayer.wrap(chosen), failurePolicy);
    }

    private static Store embeddedStore() {
        return ServiceLoader.load(StoreProvider.class).findFirst()
                .map(StoreProvider::create)
                .orElseThrow(() -> new IllegalStateException(
                        "no store set and no StoreProvider on the class path: add sluice-store-local"));
    }
}
