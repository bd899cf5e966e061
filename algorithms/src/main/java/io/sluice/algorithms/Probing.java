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
 * <p>Why each builds its {@link Transition} in one place ({@link Transition#of}) and a denial
 * read asks for its {@link #denial}: the JIT (C2, JDK 17) removes a transition only if one
 * allocation made it and it is read where it is made. Built on several branches, or returned
 * through a call that sees several algorithms, it is allocated (48 bytes per limit per
 * decision); read inside {@link #denial}, which the JIT compiles for each algorithm, a denial
 * allocates only its {@link Decision}. That needs the transition inlined too: each stays
 * under the size up to which the JIT inlines a hot method (325 bytes of bytecode,
 * {@code -XX:FreqInlineSize}), with helpers where it would not.
 */
interface Probing extends Algorithm {

    /**
     * The transition, with an admission's {@link Transition#state()} built as {@code newState}
     * says: not at all ({@link Checks#NO_STATE}), as a new array, or written into {@code state}.
     */
    Transition transition(long @Nullable [] state, long nowMicros, Limit limit, long cost, NewState newState);

    @Override
    default Transition transition(long @Nullable [] state, long nowMicros, Limit limit, long cost) {
        return transition(state, nowMicros, limit, cost, NewState.NEW);
    }

    /** This limit's decision alone when it denies the request, else {@code null}; nothing built for an admission. */
    default @Nullable Decision denial(long @Nullable [] state, long nowMicros, Limit limit, long cost) {
        return Decisions.denial(limit, transition(state, nowMicros, limit, cost, NewState.NONE));
    }

    /**
     * Adds this limit's transition, its new state not built, to {@code fold} as the limit at
     * {@code index}: read here, where the JIT compiles it for each algorithm of a call site it
     * inlines, so the transition is not allocated (returned to a caller that sees two
     * algorithms, it is one of two allocations, which JDK 17 keeps).
     */
    default void fold(Fold fold, int index, long @Nullable [] state, long nowMicros, Limit limit, long cost) {
        fold.add(index, transition(state, nowMicros, limit, cost, NewState.NONE));
    }

    /**
     * Charges an admission of {@code cost} to the limit's state at {@code at} of {@code key}
     * ({@link KeyState#charge}), its new state written into {@code state} when it fits; read
     * here for the reason {@link #fold} says. The caller knows that the limit admits.
     */
    default void charge(KeyState key, int at, long @Nullable [] state, long nowMicros, Limit limit, long cost) {
        Transition admitted = transition(state, nowMicros, limit, cost, NewState.IN_PLACE);
        key.charge(at, limit.name(), admitted.resetAfterMicros(), admitted.state(), nowMicros);
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
