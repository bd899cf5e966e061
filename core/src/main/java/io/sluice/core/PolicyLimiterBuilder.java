package io.sluice.core;

import io.sluice.api.Store;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** Builds a {@link PolicyLimiter}. Not thread-safe; the limiter it builds is. */
public final class PolicyLimiterBuilder {

    private @Nullable Supplier<PolicyConfig> config;
    private @Nullable Store store;
    private @Nullable TierResolver tierResolver;
    private StoreGuard guard = new StoreGuard();

    PolicyLimiterBuilder() {
    }

    /** A fixed policy. */
    public PolicyLimiterBuilder config(PolicyConfig config) {
        Objects.requireNonNull(config, "config");
        this.config = () -> config;
        return this;
    }

    /** A policy that is swapped when its file changes: each request uses the one in force when it starts. */
    public PolicyLimiterBuilder config(ReloadingPolicyConfig config) {
        this.config = Objects.requireNonNull(config, "config")::current;
        return this;
    }

    /** The store that keeps the limits' state. */
    public PolicyLimiterBuilder store(Store store) {
        this.store = Objects.requireNonNull(store, "store");
        return this;
    }

    /**
     * The layer between the limiter and its store: timeouts, circuit breaker, fallback, block
     * cache, metrics and leasing ({@link StoreGuard#StoreGuard() its defaults} unless set). Each
     * limit's failure policy comes from the policy file, and so does leasing (the file's
     * {@code leasing} section, {@link PolicyConfig#leasing()}) unless this guard sets it.
     */
    public PolicyLimiterBuilder guard(StoreGuard guard) {
        this.guard = Objects.requireNonNull(guard, "guard");
        return this;
    }

    /**
     * Where API keys' tiers come from, instead of the policy file's {@code api-keys} list
     * (which is then ignored; its {@code unknown} rule still applies).
     */
    public PolicyLimiterBuilder tierResolver(TierResolver tierResolver) {
        this.tierResolver = Objects.requireNonNull(tierResolver, "tierResolver");
        return this;
    }

    /**
     * Builds the limiter.
     *
     * @throws IllegalStateException when the config or the store was not set
     */
    public PolicyLimiter build() {
        if (config == null) {
            throw new IllegalStateException("a policy limiter needs a config");
        }
        if (store == null) {
            throw new IllegalStateException("a policy limiter needs a store");
        }
        // Leasing is read once, here: a reload that changes the section applies at the next build.
        LeasePolicy fromFile = config.get().leasing().orElse(null);
        StoreGuard effective = guard.leasePolicy == null && fromFile != null ? guard.withLeasing(fromFile) : guard;
        return new StorePolicyLimiter(config, effective.guard(store), tierResolver);
    }
}
