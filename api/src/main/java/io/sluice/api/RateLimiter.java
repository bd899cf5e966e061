package io.sluice.api;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Decides whether a request for a key may proceed, across every limit of this limiter,
 * all-or-nothing: when one limit denies, none is charged.
 *
 * <pre>{@code
 * RateLimiter limiter = RateLimiter.builder()
 *         .limit(Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1)).withBurst(100))
 *         .limit(Limit.of(Algorithms.FIXED_WINDOW, 1_000_000, Duration.ofDays(1)))
 *         .build();                         // on the embedded local store
 * Decision decision = limiter.decide(apiKey, 1);
 * }</pre>
 *
 * <p>Implementations are thread-safe. A store failure is never an exception here: it is
 * a {@link Decision.Reason#STORE_UNAVAILABLE} decision, allowed or not according to the
 * {@link FailurePolicy}, or a {@link Decision.Reason#FALLBACK} decision made in this process.
 * Every request passes through the {@link StoreLayer} (with {@code sluice-core}: a timeout,
 * a circuit breaker, the fallback, the block cache and metrics), the same one that
 * {@code sluice-core}'s policy limiter uses.
 */
public interface RateLimiter {

    /** The longest key, in characters. Longer keys are rejected, never truncated. */
    int MAX_KEY_LENGTH = 16_384;

    /** Creates a builder. */
    static RateLimiterBuilder builder() {
        return new RateLimiterBuilder();
    }

    /**
     * Decides a request of {@code cost} tokens for {@code key}, waiting for the store.
     *
     * @throws IllegalArgumentException naming the value when the key is empty or longer than
     *     {@link #MAX_KEY_LENGTH}, or the cost is below 1
     * @throws NullPointerException when the key is null
     */
    Decision decide(String key, long cost);

    /** Decides a request of one token for {@code key}. */
    default Decision decide(String key) {
        return decide(key, 1);
    }

    /**
     * Decides a request of {@code cost} tokens for {@code key} without blocking. Bad input
     * is rejected at once, as by {@link #decide(String, long)}; the stage never completes
     * exceptionally because of the store.
     */
    CompletionStage<Decision> decideAsync(String key, long cost);

    /** The limits this limiter enforces, in the order they were added. */
    List<Limit> limits();
}
