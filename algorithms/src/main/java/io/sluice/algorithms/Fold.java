package io.sluice.algorithms;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.util.List;

/**
 * {@link Decisions#combine}'s rule taken one limit's transition at a time, keeping only the
 * figures the decision needs: a multi-limit admission that kept its transitions for the rule
 * (in an array, or returned through a call that sees several algorithms) had each of them
 * allocated, 48 bytes per limit. {@link Probing#fold} hands each transition over where it is
 * made, so that the JIT can remove it. Mutable, for one decision on one thread.
 */
final class Fold {

    private int exceeding = -1;
    private long exceedingRemaining;
    private long exceedingResetAfter;
    private int denying = -1;
    private long denyingRemaining;
    private long denyingResetAfter;
    private long denyingRetryAfter;
    private int least = -1;
    private long leastRemaining;
    private long leastResetAfter;

    /** Adds the transition of the limit at {@code index} of the request, in order from 0. */
    void add(int index, Transition transition) {
        long remaining = transition.remaining();
        if (transition.costExceedsCapacity()) {
            if (exceeding < 0) {
                exceeding = index;
                exceedingRemaining = remaining;
                exceedingResetAfter = transition.resetAfterMicros();
            }
        } else if (!transition.allowed()
                && (denying < 0 || transition.retryAfterMicros() > denyingRetryAfter)) {
            denying = index;
            denyingRemaining = remaining;
            denyingResetAfter = transition.resetAfterMicros();
            denyingRetryAfter = transition.retryAfterMicros();
        }
        if (least < 0 || remaining < leastRemaining) {
            least = index;
            leastRemaining = remaining;
            leastResetAfter = transition.resetAfterMicros();
        }
    }

    /** Whether a limit added so far can never admit the cost: the decision is then known. */
    boolean costExceedsCapacity() {
        return exceeding >= 0;
    }

    /** The decision on the transitions added, as {@link Decisions#combine} gives it for {@code limits}. */
    Decision decision(List<Limit> limits) {
        if (exceeding >= 0) {
            return Decision.costExceedsCapacity(limits.get(exceeding), exceedingRemaining, exceedingResetAfter);
        }
        if (denying >= 0) {
            return Decision.limitExceeded(limits.get(denying), denyingRemaining, denyingResetAfter,
                    denyingRetryAfter);
        }
        return Decision.allowed(limits.get(least), leastRemaining, leastResetAfter);
    }
}
