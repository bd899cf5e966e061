package io.sluice.algorithms;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import org.jspecify.annotations.Nullable;

/**
 * sliding-window-counter (id 3): state {@code [tag, windowStart, current, previous]}; the
 * previous window's count is weighted by the part of it the sliding window still covers,
 * quantised so that every product stays below 2^53; see docs/algorithms.md.
 */
final class SlidingWindowCounter implements Probing, LeaseReturn {

    static final int ID = 3;
    static final long TAG = ID * 256 + 1;
    static final String NAME = "sliding-window-counter";

    /** At most 2^20 steps of weight per window (fewer than 2^21 after rounding the step down). */
    static final long STEPS = 1L << 20;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int id() {
        return ID;
    }

    @Override
    public void checkLimit(long permits, long burst, long periodMicros) {
        Checks.burstEqualsPermits(NAME, permits, burst, periodMicros);
    }

    @Override
    public Transition transition(long @Nullable [] storedState, long nowMicros, Limit limit, long cost,
                                 NewState newState) {
        Checks.cost(cost);
        long[] state = storedState != null ? storedState : Checks.NO_STATE;
        long permits = limit.permits();
        long period = limit.periodMicros();
        boolean stored = Checks.hasTag(state, TAG) && state.length == 4;
        // A clock that went back is read as the stored window's start: nothing refills.
        long at = stored ? Math.max(nowMicros, state[1]) : nowMicros;
        long windowStart = at - Math.floorMod(at, period);
        long elapsed = at - windowStart;
        long current = countOf(state, stored, windowStart, period);
        long previous = countOf(state, stored, windowStart - period, period);
        Weights weights = new Weights(period);
        long estimate = weights.weighted(previous, elapsed) + current;
        boolean exceeds = cost > permits;
        boolean allowed = !exceeds && estimate + cost <= permits;
        long counted = allowed ? current + cost : current;
        long retryAfter = allowed || exceeds ? 0
                : retryAt(weights, windowStart, elapsed, current, previous, permits - cost) - nowMicros;
        // One Transition, built in one place (see Probing).
        return Transition.of(allowed, exceeds, allowed ? permits - estimate - cost : Math.max(0, permits - estimate),
                resetAfter(weights, windowStart, counted, previous, nowMicros), retryAfter,
                !allowed ? storedState : Checks.written(newState, storedState, TAG, windowStart, counted, previous));
    }

    /*
     * The helpers below keep transition under the JIT's size for inlining a hot method (325
     * bytes of bytecode), without which its Transition is allocated (see Probing).
     */

    /** The count a stored state holds for the window that starts at {@code start}: its current, or its previous. */
    private static long countOf(long[] state, boolean stored, long start, long period) {
        if (!stored) {
            return 0;
        }
        if (state[1] == start) {
            return state[2];
        }
        return state[1] == start + period ? state[3] : 0;
    }

    /**
     * The instant a denied request fits again: once the previous window weighs little enough,
     * or, when the current count alone leaves no room, once the current window is the previous.
     */
    private static long retryAt(Weights weights, long windowStart, long elapsed, long current, long previous,
                                long permitsLessCost) {
        long room = permitsLessCost - current;
        return room >= 0
                ? windowStart + Math.max(elapsed, weights.firstFit(previous, room))
                : windowStart + weights.period + weights.firstFit(current, permitsLessCost);
    }

    private static long resetAfter(Weights weights, long windowStart, long current, long previous,
                                   long nowMicros) {
        if (current > 0) {
            return windowStart + weights.period + weights.firstFit(current, 0) - nowMicros;
        }
        if (previous > 0) {
            return Math.max(0, windowStart + weights.firstFit(previous, 0) - nowMicros);
        }
        return 0;
    }

    /**
     * Takes the tokens off the current count while the window is still the one the lease was
     * charged in; once it is the previous window, its count is only ever weighted down, so
     * leaving the tokens there can only under-admit.
     */
    @Override
    public long @Nullable [] giveBack(long @Nullable [] state, long nowMicros, Limit limit, long takenAtMicros,
                                      long unused) {
        long period = limit.periodMicros();
        long windowStart = takenAtMicros - Math.floorMod(takenAtMicros, period);
        if (state == null || !Checks.hasTag(state, TAG) || state.length != 4 || state[1] != windowStart
                || nowMicros - Math.floorMod(nowMicros, period) != windowStart) {
            return null;
        }
        return new long[] {TAG, windowStart, Math.max(0, state[2] - unused), state[3]};
    }

    /** Bound to this algorithm's transition, which the JIT then removes (see {@link Probing}). */
    @Override
    public @Nullable Decision denial(long @Nullable [] state, long nowMicros, Limit limit, long cost,
                                     long atLeast) {
        return Decisions.denial(limit, transition(state, nowMicros, limit, cost, NewState.NONE), atLeast);
    }

    /** Bound to this algorithm's transition, which the JIT then removes (see {@link Probing}). */
    @Override
    public void fold(Fold fold, int index, long @Nullable [] state, long nowMicros, Limit limit, long cost) {
        fold.add(index, transition(state, nowMicros, limit, cost, NewState.NONE));
    }

    /** Bound to this algorithm's transition, which the JIT then removes (see {@link Probing}). */
    @Override
    public void charge(KeyState key, int at, long @Nullable [] state, long nowMicros, Limit limit, long cost) {
        Transition admitted = transition(state, nowMicros, limit, cost, NewState.IN_PLACE);
        key.charge(at, limit.name(), admitted.resetAfterMicros(), admitted.state(), nowMicros);
    }

    @Override
    public String toString() {
        return NAME;
    }

    /** The quantised weight of the previous window: {@code weighted(n, e) = n * num(e) / den}. */
    private static final class Weights {
        final long period;
        final long step;
        final long den;

        Weights(long period) {
            this.period = period;
            this.step = Math.max(1, period / STEPS);
            this.den = period / step;
        }

        /** The previous window's count {@code n} as seen {@code elapsed} into the current window. */
        long weighted(long n, long elapsed) {
            return n * ((period - elapsed) / step) / den;
        }

        /** The smallest elapsed time in {@code [0, period]} at which {@code weighted(n, e) <= r}. */
        long firstFit(long n, long r) {
            if (n == 0) {
                return 0;
            }
            long maxNum = ((r + 1) * den - 1) / n;
            if (maxNum >= den) {
                return 0;
            }
            return period - (maxNum + 1) * step + 1;
        }
    }
}
