package io.sluice.algorithms;

import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import org.jspecify.annotations.Nullable;

/**
 * sliding-log (id 2): state {@code [tag, base, t1, s1, t2, s2, ...]}, one entry per distinct
 * microsecond with an admitted request in the last period, times strictly increasing, where
 * {@code s_i} is {@code base} plus the costs of entries 1 to i (a running total); see
 * docs/algorithms.md.
 *
 * <p>The running total makes a decision's cost independent of the log's length where it can
 * be: the live entries are found by a binary search on the times, the cost they hold is one
 * subtraction, and a denial's retry time is a binary search on the totals. A denial is
 * O(log n) and allocates nothing; an admission also copies the live entries into the new
 * state (the {@link Algorithm} contract: a state is never changed in place). Format 1 (costs
 * instead of totals) is still read.
 */
final class SlidingLog implements Algorithm {

    static final int ID = 2;
    static final long TAG = ID * 256 + 2;
    /** The tag of format 1: {@code [tag, t1, c1, t2, c2, ...]}, costs instead of running totals. */
    static final long TAG_V1 = ID * 256 + 1;
    static final String NAME = "sliding-log";

    /**
     * The most permits a sliding log takes: it keeps one entry per admitted request, and an
     * admission copies the live log, so both memory per key (about 90 KB) and the work per
     * admission stay bounded.
     */
    static final long MAX_PERMITS = 10_000;

    /** Above this base the totals are rebased to 0, so that they stay far below 2^53. */
    static final long REBASE_ABOVE = 1L << 40;

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
    public Transition transition(long @Nullable [] state, long nowMicros, Limit limit, long cost) {
        return transition(state, nowMicros, limit, cost, true);
    }

    /**
     * The transition; with {@code build} false, an admission's new state is not built (its
     * {@link Transition#state()} is the log as read). {@link KeyState} asks so first when a
     * request has several limits, since another limit may deny it: then copying the log
     * would be wasted, and a denial would cost as much as an admission.
     */
    Transition transition(long @Nullable [] storedState, long nowMicros, Limit limit, long cost, boolean build) {
        Checks.cost(cost);
        long[] state = storedState != null ? storedState : Checks.NO_STATE;
        long permits = limit.permits();
        long period = limit.periodMicros();
        long[] log = Checks.hasTag(state, TAG) && state.length % 2 == 0 ? state : fromFormat1(state);
        int end = log.length;
        int first = firstLive(log, nowMicros - period);
        long prior = log[first - 1];
        long total = log[end - 1];
        long used = total - prior;
        boolean empty = first == end;
        long lastTime = empty ? 0 : log[end - 2];
        long allExpireAfter = empty ? 0 : lastTime + period - nowMicros;
        if (cost > permits) {
            return Transition.costExceedsCapacity(Math.max(0, permits - used), allExpireAfter, storedState);
        }
        if (used + cost > permits) {
            // The newest entry whose expiry frees enough: the first whose total reaches this.
            int freeing = firstTotalAtLeast(log, first, total + cost - permits);
            return Transition.denied(Math.max(0, permits - used), allExpireAfter,
                    log[freeing - 1] + period - nowMicros, storedState);
        }
        boolean merge = !empty && lastTime >= nowMicros;
        // Same microsecond, or a clock that went back: add to the newest entry so that times
        // stay in order and nothing expires earlier than it would have.
        long entryTime = merge ? lastTime : nowMicros;
        if (!build) {
            return Transition.allowed(permits - used - cost, entryTime + period - nowMicros, log);
        }
        long[] next = new long[2 + end - first + (merge ? 0 : 2)];
        next[0] = TAG;
        next[1] = prior;
        System.arraycopy(log, first, next, 2, end - first);
        next[next.length - 2] = entryTime;
        next[next.length - 1] = total + cost;
        if (prior > REBASE_ABOVE) {
            for (int i = 1; i < next.length; i += 2) {
                next[i] -= prior;
            }
        }
        return Transition.allowed(permits - used - cost, entryTime + period - nowMicros, next);
    }

    /**
     * The index of the first entry's time that is above {@code expiredUpTo} ({@code log.length}
     * when none is), by binary search on the times; the running total before it is at the
     * index before, which is {@code base} for the first entry.
     */
    private static int firstLive(long[] log, long expiredUpTo) {
        int low = 0;
        int high = (log.length - 2) / 2;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (log[2 + 2 * middle] <= expiredUpTo) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return 2 + 2 * low;
    }

    /**
     * The index of the time of the first entry, from {@code first} on, whose running total is
     * at least {@code target}, plus one: the index of that total. One exists when called.
     */
    private static int firstTotalAtLeast(long[] log, int first, long target) {
        int low = (first - 2) / 2;
        int high = (log.length - 2) / 2 - 1;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (log[3 + 2 * middle] < target) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return 3 + 2 * low;
    }

    /** A state of format 1 as format 2 (running totals from a base of 0); the fresh log otherwise. */
    private static long[] fromFormat1(long[] state) {
        if (!Checks.hasTag(state, TAG_V1) || state.length % 2 != 1) {
            return new long[] {TAG, 0};
        }
        long[] log = new long[state.length + 1];
        log[0] = TAG;
        long total = 0;
        for (int i = 1; i < state.length; i += 2) {
            total += state[i + 1];
            log[i + 1] = state[i];
            log[i + 2] = total;
        }
        return log;
    }

    @Override
    public String toString() {
        return NAME;
    }
}
