package io.sluice.api;

import org.jspecify.annotations.Nullable;

/**
 * A rate-limiting algorithm: a pure, deterministic transition
 * {@code (state, now, limit, cost) -> (decision, new state)}.
 *
 * <p>Contract for implementations:
 * <ul>
 *   <li>integer arithmetic only, every intermediate value below 2<sup>53</sup>, so that a
 *       Lua script can reproduce the transition bit for bit;</li>
 *   <li>the state is a compact {@code long[]} whose first element is a tag
 *       ({@code algorithmId * 256 + formatVersion}); a {@code null} state, or one with
 *       another tag, is the fresh state (the limit completely unused);</li>
 *   <li>the given state array is never modified; {@link Transition#state()} is a new array;</li>
 *   <li>a state whose limit parameters have changed since it was written is still read:
 *       counts are kept and tokens are capped at the new capacity.</li>
 * </ul>
 * The five reference implementations are in {@code io.sluice.algorithms.Algorithms}.
 */
public interface Algorithm {

    /** The stable name used in configuration and by stores, such as {@code token-bucket}. */
    String name();

    /**
     * A stable id, the first byte of the state's tag: 1 to 5 for the built-in algorithms of
     * {@code io.sluice.algorithms.Algorithms} (never renumbered or reused), 256 or more for
     * an algorithm of your own. Stores that run algorithms outside the JVM, such as Redis's
     * scripts, select the algorithm by this id, never by a position in a list.
     */
    int id();

    /**
     * Checks that this algorithm can enforce a limit with these parameters.
     *
     * @throws IllegalArgumentException naming the value this algorithm cannot use
     */
    void checkLimit(long permits, long burst, long periodMicros);

    /**
     * Decides whether {@code cost} tokens may be taken now.
     *
     * @param state the stored state, or {@code null} when none is stored
     * @param nowMicros the store's clock, in microseconds since the epoch
     * @param limit the limit to enforce; its algorithm is this one
     * @param cost the tokens this request takes, at least 1
     * @return the decision for this limit and the state to store if the request is admitted
     */
    Transition transition(long @Nullable [] state, long nowMicros, Limit limit, long cost);
}
