package io.sluice.algorithms;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** Combines the transitions of every limit of one request into one {@link Decision}. */
public final class Decisions {

    private Decisions() {
    }

    /**
     * The multi-limit rule of {@code docs/algorithms.md}: the first limit whose capacity is
     * below the cost gives {@link Decision.Reason#COST_EXCEEDS_CAPACITY}; else the denying
     * limit with the longest retry (the first on ties) gives
     * {@link Decision.Reason#LIMIT_EXCEEDED}; else the request is admitted and bound to the
     * limit with the least remaining (the first on ties). The caller charges every limit
     * if and only if the decision is allowed.
     *
     * @param limits the limits, in order
     * @param transitions each limit's transition on its current state, in the same order
     * @throws IllegalArgumentException when the lists are empty or of different sizes
     */
    public static Decision combine(List<Limit> limits, List<Transition> transitions) {
        Objects.requireNonNull(transitions, "transitions");
        return combine(limits, transitions.toArray(new Transition[0]));
    }

    /**
     * {@link #combine(List, List)} on an array of the transitions, for a store that reads them
     * into one of their number (no list and no copy of it per decision).
     *
     * @throws IllegalArgumentException when there are no limits or not as many transitions
     */
    public static Decision combine(List<Limit> limits, Transition[] transitions) {
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(transitions, "transitions");
        if (limits.isEmpty() || limits.size() != transitions.length) {
            throw new IllegalArgumentException("need one transition per limit, at least one: "
                    + limits.size() + " limits, " + transitions.length + " transitions");
        }
        for (int i = 0; i < transitions.length; i++) {
            Transition transition = transitions[i];
            if (transition.costExceedsCapacity()) {
                return Decision.costExceedsCapacity(limits.get(i), transition.remaining(),
                        transition.resetAfterMicros());
            }
        }
        int denying = -1;
        int leastRemaining = 0;
        for (int i = 0; i < transitions.length; i++) {
            Transition transition = transitions[i];
            if (!transition.allowed()
                    && (denying < 0 || transition.retryAfterMicros() > transitions[denying].retryAfterMicros())) {
                denying = i;
            }
            if (transition.remaining() < transitions[leastRemaining].remaining()) {
                leastRemaining = i;
            }
        }
        if (denying >= 0) {
            Transition transition = transitions[denying];
            return Decision.limitExceeded(limits.get(denying), transition.remaining(),
                    transition.resetAfterMicros(), transition.retryAfterMicros());
        }
        Transition transition = transitions[leastRemaining];
        return Decision.allowed(limits.get(leastRemaining), transition.remaining(),
                transition.resetAfterMicros());
    }

    /** The decision of a request against one limit: {@link #combine} for a list of one. */
    static Decision of(Limit limit, Transition transition) {
        if (transition.costExceedsCapacity()) {
            return Decision.costExceedsCapacity(limit, transition.remaining(), transition.resetAfterMicros());
        }
        if (!transition.allowed()) {
            return Decision.limitExceeded(limit, transition.remaining(), transition.resetAfterMicros(),
                    transition.retryAfterMicros());
        }
        return Decision.allowed(limit, transition.remaining(), transition.resetAfterMicros());
    }

    /**
     * {@link #of}, when the transition denies with a {@link Probing#rank} of at least
     * {@code atLeast} (above {@link Probing#ADMITS}); {@code null} when it admits or ranks lower.
     */
    static @Nullable Decision denial(Limit limit, Transition transition, long atLeast) {
        return transition.allowed() || Probing.rank(transition) < atLeast ? null : of(limit, transition);
    }
}
