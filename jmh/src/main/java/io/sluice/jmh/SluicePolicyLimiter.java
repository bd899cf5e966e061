package io.sluice.jmh;

import io.sluice.api.Decision;
import io.sluice.api.Store;
import io.sluice.core.ApiRequest;
import io.sluice.core.PolicyConfig;
import io.sluice.core.PolicyDecision;
import io.sluice.core.PolicyLimiter;
import io.sluice.core.StoreGuard;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

/**
 * Sluice as its servlet filter runs it ({@code RateLimitFilter}, through
 * {@code HttpRateLimiter.decide}): a {@link PolicyLimiter} deciding and waiting, whose one tier
 * has the shape's limits as token buckets (fixed windows where the shape says so), every
 * benchmark key an API key of that tier.
 */
final class SluicePolicyLimiter implements Limiter {

    private static final String TIER = "bench";

    private final Store store;
    private final PolicyLimiter limiter;

    /** A limiter on {@code store}, which it closes when closed. */
    SluicePolicyLimiter(Store store, LimitShape shape) {
        this.store = store;
        // As SluiceLimiter: the timeout raised, no block cache, so that every decision is the store's.
        this.limiter = PolicyLimiter.builder().config(PolicyConfig.parse(policy(shape), "jmh-policy.yaml"))
                .store(store).tierResolver(key -> Optional.of(TIER))
                .guard(StoreGuard.custom().timeout(Duration.ofSeconds(10)).blockCacheSize(0).build())
                .build();
    }

    private static String policy(LimitShape shape) {
        StringBuilder yaml = new StringBuilder("tiers:\n  - name: " + TIER + "\n    limits:\n");
        for (LimitShape.Spec spec : shape.specs()) {
            yaml.append("      - {name: ").append(spec.name())
                    .append(", algorithm: ").append(spec.fixedWindow() ? "fixed-window" : "token-bucket")
                    .append(", permits: ").append(spec.permits())
                    .append(", period: ").append(spec.period().toMillis()).append("ms}\n");
        }
        return yaml.toString();
    }

    /** {@code cost} is the policy's (1: no endpoint rule); any other is refused. */
    @Override
    public boolean tryAcquire(String key, long cost) {
        if (cost != 1) {
            throw new IllegalArgumentException("a policy's cost is its endpoint's; this one has none: cost " + cost);
        }
        PolicyDecision decision = limiter.decide(ApiRequest.of(key, "192.0.2.1", "GET", "/"));
        Decision limits = decision.decision()
                .orElseThrow(() -> new IllegalStateException("no limit decided key " + key + ": " + decision));
        if (limits.reason() == Decision.Reason.STORE_UNAVAILABLE || limits.reason() == Decision.Reason.FALLBACK) {
            // A failing store answers fast; counting that as a decision would flatter the store.
            throw new IllegalStateException("store unavailable during the benchmark: " + limits);
        }
        return decision.allowed();
    }

    /**
     * The client key the policy keeps an API key's state under (docs/configuration.md,
     * {@code api-keys}; docs/stores/redis.md): {@code key:} and the first 128 bits of the
     * SHA-256 of the key's UTF-16 code units, in unpadded base64url.
     */
    @Override
    public String storeKey(String key) {
        byte[] units = new byte[key.length() * 2];
        for (int i = 0; i < key.length(); i++) {
            units[2 * i] = (byte) (key.charAt(i) >>> 8);
            units[2 * i + 1] = (byte) key.charAt(i);
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(units);
            return "key:" + Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public void close() {
        limiter.close();
        store.close();
    }
}
