package io.sluice.api;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where limits keep their state: the service-provider interface for storage back ends.
 *
 * <p>A store applies the {@linkplain Algorithm transitions} of several limits of one key
 * atomically, with its own clock, next to the data where it can: if one limit denies,
 * none is charged. Failures complete the returned stage exceptionally (preferably with a
 * {@link StoreUnavailableException}); they are never reported as a denial.
 *
 * <p>Inputs have been validated by the {@link RateLimiter}: the key is non-empty and at
 * most {@link RateLimiter#MAX_KEY_LENGTH} characters, the limits are non-empty with
 * distinct names, and the cost is positive.
 *
 * <p>A store's factory may accept a {@link TimeSource} as a test-only override of its
 * clock; production configuration never sets it.
 */
public interface Store extends AutoCloseable {

    /** What this store guarantees. */
    StoreCapabilities capabilities();

    /**
     * Whether this store can run limits of this algorithm. A store that runs the built-in
     * algorithms as scripts or ships them to other processes by name supports only those;
     * a limiter is never built with a limit its store cannot run.
     */
    boolean supports(Algorithm algorithm);

    /**
     * Decides a request of {@code cost} tokens for {@code key} against every limit, and
     * charges all of them if and only if all admit it.
     */
    CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost);

    /**
     * Decides as {@link #tryAcquire} does and waits for the answer: the path of
     * {@link RateLimiter#decide(String, long)}. The default waits for {@link #tryAcquire}'s
     * stage, which is right for every store; a store that decides on the calling thread
     * ({@link StoreCapabilities#inProcess()}) may override it to answer without a stage, and
     * a store that can wait for its servers on the caller's thread with a timeout of its own
     * ({@link StoreCapabilities#waitBound()}) to answer with one thread hand-off fewer.
     *
     * @throws RuntimeException when the store fails: the stage's {@link
     *     java.util.concurrent.CompletionException} in the default, the failure itself (preferably a
     *     {@link StoreUnavailableException}) in an override
     */
    default Decision tryAcquireAndWait(String key, List<Limit> limits, long cost) {
        return tryAcquire(key, limits, cost).toCompletableFuture().join();
    }

    /**
     * Takes a batch of tokens from every limit of {@code key} at once, for one instance to
     * spend locally: the largest count up to {@code maxTokens} that every limit admits now,
     * charged to all of them atomically (0 when one of them cannot give a single token). A
     * store that can do this says so with {@link StoreCapabilities#leasing()}; the
     * conformance kit checks it. The reference is {@code io.sluice.algorithms.KeyState#lease}:
     * each limit's count is what a one-token request would leave plus one, the lease's time is
     * the store's clock, and the decision is that of a request of the granted count (or the
     * one-token denial when it is 0).
     *
     * <p>Only fixed window, sliding window counter, token bucket and GCRA limits can be leased
     * ({@code io.sluice.algorithms.Leasing#supports}); a request with another limit, such as a
     * sliding log, fails with an {@link IllegalArgumentException} naming it and charges nothing.
     *
     * @param maxTokens the most tokens to take, at least 1
     */
    default CompletionStage<Lease> lease(String key, List<Limit> limits, long maxTokens) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                "store " + this + " does not lease tokens (StoreCapabilities.leasing is false)"));
    }

    /**
     * Gives back {@code unusedTokens} of a {@link Lease} taken by {@link #lease} with the same
     * key and limits, to the limits whose algorithm can take them back without ever admitting
     * more than without the lease: a fixed window or sliding window counter only while it is
     * still the window the lease was taken in; a token bucket or GCRA less what it refilled
     * since the lease was taken, capped at its capacity (while the tokens were out the bucket
     * could refill to capacity, where without the lease it would have wasted that refill).
     * Tokens that cannot be given back are dropped: leasing may under-admit, never over-admit.
     * The reference is {@code io.sluice.algorithms.KeyState#giveBack}.
     *
     * @param unusedTokens at most {@code lease.tokens()}; more fails with an
     *     {@link IllegalArgumentException}
     */
    default CompletionStage<Void> giveBack(String key, List<Limit> limits, Lease lease, long unusedTokens) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                "store " + this + " does not lease tokens (StoreCapabilities.leasing is false)"));
    }

    /** Releases connections and threads; the store is unusable afterwards. */
    @Override
    void close();
}
