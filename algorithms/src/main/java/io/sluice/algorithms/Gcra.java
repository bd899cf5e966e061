package io.sluice.algorithms;

import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import org.jspecify.annotations.Nullable;

/**
 * gcra (id 5): state {@code [tag, tat]}, the theoretical arrival time; token-bucket
 * behaviour in one long; see docs/algorithms.md.
 */
final class Gcra implements Algorithm {

    static final int ID = 5;
    static final long TAG = ID * 256 + 1;
    static final String NAME = "gcra";

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
        Checks.bucketFits(NAME, permits, burst, periodMicros);
    }

    @Override
    public Transition transition(long @Nullable [] storedState, long nowMicros, Limit limit, long cost) {
        Checks.cost(cost);
        long[] state = storedState != null ? storedState : Checks.NO_STATE;
        long burst = limit.burst();
        long interval = Checks.tokenInterval(limit.permits(), limit.periodMicros());
        long tau = burst * interval;
        boolean stored = Checks.hasTag(state, TAG) && state.length == 2;
        long tat = stored ? Math.max(state[1], nowMicros) : nowMicros;
        long owed = tat - nowMicros;
        if (cost > burst) {
            return Transition.costExceedsCapacity(Math.max(0, tau - owed) / interval, owed, storedState);
        }
        long next = tat + cost * interval;
        if (next - nowMicros <= tau) {
            return Transition.allowed((tau - (next - nowMicros)) / interval, next - nowMicros,
                    new long[] {TAG, next});
        }
        return Transition.denied(Math.max(0, tau - owed) / interval, owed, next - nowMicros - tau, storedState);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
