package io.sluice.algorithms;

import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import org.jspecify.annotations.Nullable;

/**
 * sliding-log (id 2): state {@code [tag, t1, c1, t2, c2, ...]}, one (time, cost) entry per
 * admitted request in the last period, times strictly increasing; see docs/algorithms.md.
 */
final class SlidingLog implements Algorithm {

    static final int ID = 2;
    static final long TAG = ID * 256 + 1;
    static final String NAME = "sliding-log";

    /**
     * The most permits a sliding log takes: it keeps one entry per admitted request, and every
     * decision reads and rewrites the whole log, so both memory per key (about 90 KB) and the
     * work per decision stay bounded.
     */
    static final long MAX_PERMITS = 10_000;

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
        if (permits > MAX_PERMITS) {
            throw new IllegalArgumentException(NAME + " keeps one entry per request: permits must be at most "
                    + MAX_PERMITS + " (use sliding-window-counter or a bucket for larger limits): " + permits);
        }
    }

    @Override
    public Transition transition(long @Nullable [] storedState, long nowMicros, Limit limit, long cost) {
        Checks.cost(cost);
        long[] state = storedState != null ? storedState : Checks.NO_STATE;
        long permits = limit.permits();
        long period = limit.periodMicros();
        int end = Checks.hasTag(state, TAG) && state.length % 2 == 1 ? state.length : 1;
        int first = 1;
        while (first < end && state[first] <= nowMicros - period) {
            first += 2;
        }
        long used = 0;
        for (int i = first; i < end; i += 2) {
            used += state[i + 1];
        }
        boolean empty = first == end;
        long lastTime = empty ? 0 : state[end - 2];
        long allExpireAfter = empty ? 0 : lastTime + period - nowMicros;
        if (cost > permits) {
            return Transition.costExceedsCapacity(Math.max(0, permits - used), allExpireAfter, storedState);
        }
        if (used + cost <= permits) {
            long[] next;
            long entryTime;
            if (!empty && lastTime >= nowMicros) {
                // Same microsecond, or a clock that went back: add to the newest entry so that
                // times stay in order and nothing expires earlier than it would have.
                entryTime = lastTime;
                next = new long[1 + end - first];
                System.arraycopy(state, first, next, 1, end - first);
                next[next.length - 1] += cost;
            } else {
                entryTime = nowMicros;
                next = new long[3 + end - first];
                if (!empty) {
                    System.arraycopy(state, first, next, 1, end - first);
                }
                next[next.length - 2] = nowMicros;
                next[next.length - 1] = cost;
            }
            next[0] = TAG;
            return Transition.allowed(permits - used - cost, entryTime + period - nowMicros, next);
        }
        long freed = 0;
        int k = first;
        while (used - freed + cost > permits) {
            freed += state[k + 1];
            k += 2;
        }
        long retryAfter = state[k - 2] + period - nowMicros;
        return Transition.denied(Math.max(0, permits - used), allExpireAfter, retryAfter, storedState);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
