package io.sluice.algorithms;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import org.jspecify.annotations.Nullable;

/** fixed-window (id 1): state {@code [tag, windowStart, count]}; see docs/algorithms.md. */
final class FixedWindow implements Probing, LeaseReturn {

    static final int ID = 1;
    static final long TAG = ID * 256 + 1;
    static final String NAME = "fixed-window";

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
        boolean stored = Checks.hasTag(state, TAG) && state.length == 3;
        // A clock that went back is read as the stored window's time: nothing refills.
        long at = stored ? Math.max(nowMicros, state[1]) : nowMicros;
        long windowStart = at - Math.floorMod(at, period);
        long count = stored && state[1] == windowStart ? state[2] : 0;
        long windowEndsAfter = windowStart + period - nowMicros;
        boolean exceeds = cost > permits;
        boolean allowed = !exceeds && count + cost <= permits;
        // One Transition, built in one place (see Probing).
        return Transition.of(allowed, exceeds, allowed ? permits - count - cost : Math.max(0, permits - count),
                exceeds && count == 0 ? 0 : windowEndsAfter, windowEndsAfter,
                !allowed ? storedState : Checks.written(newState, storedState, TAG, windowStart, count + cost));
    }

    /** Takes the tokens off the count while the window is still the one the lease was charged in. */
    @Override
    public long @Nullable [] giveBack(long @Nullable [] state, long nowMicros, Limit limit, long takenAtMicros,
                                      long unused) {
        long period = limit.periodMicros();
        long windowStart = takenAtMicros - Math.floorMod(takenAtMicros, period);
        if (state == null || !Checks.hasTag(state, TAG) || state.length != 3 || state[1] != windowStart
                || nowMicros - Math.floorMod(nowMicros, period) != windowStart) {
            return null;
        }
        return new long[] {TAG, windowStart, Math.max(0, state[2] - unused)};
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
}
