package io.sluice.algorithms;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.util.List;
import java.util.Objects;

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
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(transitions, "transitions");
        if (limits.isEmpty() || limits.size() != transitions.size()) {
            throw new IllegalArgumentException("need one transition per limit, at least one: "
                    + limits.size() + " limits, " + transitions.size() + " transitions");
        }
        for (int i = 0; i < transitions.size(); i++) {
            Transition transition = transitions.get(i);
            if (transition.costExceedsCapacity()) {
                return Decision.costExceedsCapacity(limits.get(i), transition.remaining(),
                        transition.resetAfterMicros());
            }
        }
        int denying = -1;
        int leastRemaining = 0;
        for (int i = 0; i < transitions.size(); i++) {
            Transition transition = transitions.get(i);
            if (!transition.allowed()
                    && (denying < 0 || transition.retryAfterMicros() > transitions.get(denying).retryAfterMicros())) {
                denying = i;
            }
            if (transition.remaining() < transitions.get(leastRemaining).remaining()) {
                leastRemaining = i;
            }
        }
        if (denying >= 0) {
            Transition transition = transitions.get(denying);
            return Decision.limitExceeded(limits.get(denying), transition.remaining(),
                    transition.resetAfterMicros(), transition.retryAfterMicros());
        }
        Transition transition = transitions.get(leastRemaining);
        return Decision.allowed(limits.get(leastRemaining), transition.remaining(),
                transition.resetAfterMicros());
    }
}
