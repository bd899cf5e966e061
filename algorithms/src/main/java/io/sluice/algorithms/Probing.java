package io.sluice.algorithms;

import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import org.jspecify.annotations.Nullable;

/**
 * A built-in algorithm, whose transition can leave an admission's new state unbuilt: a
 * denial read ({@link KeyState#denial}) and the first pass over a request's several limits
 * need only the figures, and building the state allocates it (a sliding log's copies the log).
 *
 * <p>Why each builds its {@link Transition} in one place ({@link Transition#of}) and reads it
 * in its own {@link #fold}: the JIT (C2, JDK 17) removes a transition only if one allocation
 * made it and it is read where it is made. Built on several branches, or returned through a
 * call that sees several algorithms, it is allocated (48 bytes per limit per decision). A
 * default method here is one method for every algorithm, whose call to {@link #transition}
 * sees all those the JVM runs (the mission's fixed window beside a token bucket): it inlines
 * both, and the two allocations merged there are kept. Each algorithm's own {@link #fold}
 * calls its own transition, one allocation. That needs the transition inlined too, under two
 * limits of the JIT: its bytecode under the size up to which a hot method is inlined (325
 * bytes, {@code -XX:FreqInlineSize}), with helpers where it would not be; and, once the
 * transition was compiled on its own (which happens when it gets hot before its callers do),
 * that code under 2,500 bytes ({@code -XX:InlineSmallCode}), or no caller compiled later
 * inlines it ("already compiled into a big method") and every decision allocates it. The
 * bucket transitions were just above that (2,528 bytes in a JMH fork at 8 threads): their
 * rate is found by the limit's identity ({@link BucketRate#of}), and their cost is checked by
 * the callers, not again in them.
 */
interface Probing extends Algorithm {

    /**
     * The transition, with an admission's {@link Transition#state()} built as {@code newState}
     * says: not at all ({@link Checks#NO_STATE}), as a new array, or written into {@code state}.
     * The caller has checked that {@code cost} is at least 1 ({@link Checks#cost}): a bucket
     * algorithm does not check it again (see above).
     */
    Transition transition(long @Nullable [] state, long nowMicros, Limit limit, long cost, NewState newState);

    @Override
    default Transition transition(long @Nullable [] state, long nowMicros, Limit limit, long cost) {
        Checks.cost(cost);
        return transition(state, nowMicros, limit, cost, NewState.NEW);
    }

    /** {@link #rank}'s rank of a limit that admits: below every other. */
    long ADMITS = Long.MIN_VALUE;

    /** {@link #rank}'s rank of a limit whose capacity is below the cost: above every other. */
    long EXCEEDS = Long.MAX_VALUE;

    /**
     * This limit's decision alone when it denies the request with a {@link #rank} of at least
     * {@code atLeast} (above {@link #ADMITS}), else {@code null}: nothing built for an admission
     * or a lower rank, so that a denial read over several limits builds the one decision that
     * binds ({@link KeyState#denial}). Each algorithm implements it on its own transition (see
     * above).
     */
    @Nullable Decision denial(long @Nullable [] state, long nowMicros, Limit limit, long cost, long atLeast);

    /**
     * Adds this limit's transition, its new state not built, to {@code fold} as the limit at
     * {@code index}. Each algorithm implements it as
     * {@code fold.add(index, transition(state, nowMicros, limit, cost, NewState.NONE))}, so that
     * the transition is read where it is made, by a call bound to that algorithm alone, and
     * the JIT removes it (see above).
     */
    void fold(Fold fold, int index, long @Nullable [] state, long nowMicros, Limit limit, long cost);

    /**
     * Charges an admission of {@code cost} to the limit's state at {@code at} of {@code key}
     * ({@link KeyState#charge}), its new state written into {@code state} when it fits. Each
     * algorithm implements it on its own transition, for the reason {@link #fold} says. The
     * caller knows that the limit admits.
     */
    void charge(KeyState key, int at, long @Nullable [] state, long nowMicros, Limit limit, long cost);

    /**
     * A transition's place in {@link Decisions#combine}'s rule, for a denial: {@link #ADMITS},
     * {@link #EXCEEDS}, or for a limit that denies its wait in microseconds, between the two
     * ({@link #waitRank}). The first limit of the highest rank binds.
     */
    static long rank(Transition transition) {
        if (transition.costExceedsCapacity()) {
            return EXCEEDS;
        }
        return transition.allowed() ? ADMITS : waitRank(transition.retryAfterMicros());
    }

    /** The {@link #rank} of the transition that a denial was decided on ({@link Decisions#of}). */
    static long rank(Decision denial) {
        return denial.reason() == Decision.Reason.COST_EXCEEDS_CAPACITY ? EXCEEDS
                : waitRank(denial.retryAfterMicros());
    }

    /**
     * The rank of a denial's wait: the wait, or -1 for a negative one, which a transition's
     * contract rules out and a {@link Decision} reports as no wait; a wait of
     * {@link Long#MAX_VALUE} microseconds (290,000 years) is moved below {@link #EXCEEDS}.
     */
    private static long waitRank(long retryAfterMicros) {
        return Math.max(-1, Math.min(EXCEEDS - 1, retryAfterMicros));
    }

    /** What a transition makes of an admission's new state. */
    enum NewState {
        /** Nothing: {@link Checks#NO_STATE}, for a caller that needs only the figures. */
        NONE,
        /** A new array, the given state left as it is ({@link Algorithm}'s contract). */
        NEW,
        /**
         * Written into the given state array when that has the new state's length, else a new
         * array: for {@link KeyState}, which owns its arrays and changes them only while its
         * store excludes other writers. Why: on many keys each admission's new array was kept
         * (so promoted by the collector, and a card marked) where the old one could be reused.
         */
        IN_PLACE
    }
}
