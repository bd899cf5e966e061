package io.sluice.algorithms;

import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.nio.LongBuffer;
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
 * O(log n) and allocates nothing, also on a log still in its {@link KeyState} encoding (read
 * in place: {@link #transition(LongBuffer, long, Limit, long, boolean)}); an admission also
 * copies the live entries into the new state (the {@link Algorithm} contract: a state is never
 * changed in place). Format 1 (costs instead of totals) is still read.
 */
final class SlidingLog implements Probing {

    static final int ID = 2;
    static final long TAG = ID * 256 + 2;
    /** The tag of format 1: {@code [tag, t1, c1, t2, c2, ...]}, costs instead of running totals. */
    static final long TAG_V1 = ID * 256 + 1;
    static final String NAME = "sliding-log";

    /**
     * The most permits a sliding log takes: it keeps one entry per admitted request, and an
     * admission copies the live log, so both memory per key (about 160 KB) and the work per
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

    /**
     * The transition; with {@link NewState#NONE}, an admission's new state is not built (its
     * {@link Transition#state()} is empty). {@link KeyState} asks so first when a request has
     * several limits, since another limit may deny it: then copying the log would be wasted,
     * and a denial would cost as much as an admission. The new log is always a new array
     * ({@link NewState#IN_PLACE} too): it has another length than the old one.
     */
    @Override
    public Transition transition(long @Nullable [] storedState, long nowMicros, Limit limit, long cost,
                                 NewState newState) {
        long[] state = storedState != null ? storedState : Checks.NO_STATE;
        long[] log = Checks.hasTag(state, TAG) && state.length % 2 == 0 ? state : fromFormat1(state);
        return transition(LongBuffer.wrap(log), storedState, nowMicros, limit, cost, newState != NewState.NONE);
    }

    /**
     * As {@link #transition(long[], long, Limit, long, NewState)}, with {@code build} false for
     * {@link NewState#NONE}, on a state read in place
     * (a {@link KeyState} encoding's fixed-width longs): a denial reads the entries its two
     * binary searches visit, O(log n) of them, and an admission copies only the live ones.
     */
    Transition transition(LongBuffer state, long nowMicros, Limit limit, long cost, boolean build) {
        if (state.limit() < 2 || state.limit() % 2 != 0 || state.get(0) != TAG) {
            long[] other = new long[state.limit()];
            state.get(0, other);
            return transition(other, nowMicros, limit, cost, build ? NewState.NEW : NewState.NONE);
        }
        return transition(state, null, nowMicros, limit, cost, build);
    }

    /** The transition on a log of format 2; {@code storedState} is what a denial leaves as its state. */
    private static Transition transition(LongBuffer log, long @Nullable [] storedState, long nowMicros, Limit limit,
                                         long cost, boolean build) {
        Checks.cost(cost);
        long permits = limit.permits();
        long period = limit.periodMicros();
        int end = log.limit();
        int first = firstLive(log, nowMicros - period);
        long prior = log.get(first - 1);
        long total = log.get(end - 1);
        long used = total - prior;
        boolean empty = first == end;
        long lastTime = empty ? 0 : log.get(end - 2);
        long allExpireAfter = empty ? 0 : lastTime + period - nowMicros;
        boolean exceeds = cost > permits;
        boolean allowed = !exceeds && used + cost <= permits;
        boolean merge = !empty && lastTime >= nowMicros;
        // Same microsecond, or a clock that went back: add to the newest entry so that times
        // stay in order and nothing expires earlier than it would have.
        long entryTime = merge ? lastTime : nowMicros;
        // The newest entry whose expiry frees enough: the first whose total reaches the excess.
        long retryAfter = allowed || exceeds ? 0
                : log.get(firstTotalAtLeast(log, first, total + cost - permits) - 1) + period - nowMicros;
        // One Transition, built in one place (see Probing).
        return Transition.of(allowed, exceeds, allowed ? permits - used - cost : Math.max(0, permits - used),
                allowed ? entryTime + period - nowMicros : allExpireAfter, retryAfter,
                !allowed ? storedState
                        : build ? appended(log, first, entryTime, total + cost, merge) : Checks.NO_STATE);
    }

    /**
     * The live entries of {@code log} from {@code first} on, with the admitted cost added at
     * {@code entryTime} (to the newest entry when {@code merge}), rebased when the base grew large.
     */
    private static long[] appended(LongBuffer log, int first, long entryTime, long newTotal, boolean merge) {
        int end = log.limit();
        long prior = log.get(first - 1);
        long[] next = new long[2 + end - first + (merge ? 0 : 2)];
        next[0] = TAG;
        next[1] = prior;
        log.get(first, next, 2, end - first);
        next[next.length - 2] = entryTime;
        next[next.length - 1] = newTotal;
        if (prior > REBASE_ABOVE) {
            for (int i = 1; i < next.length; i += 2) {
                next[i] -= prior;
            }
        }
        return next;
    }

    /**
     * The index of the first entry's time that is above {@code expiredUpTo} ({@code log.length}
     * when none is), by binary search on the times; the running total before it is at the
     * index before, which is {@code base} for the first entry.
     */
    private static int firstLive(LongBuffer log, long expiredUpTo) {
        int low = 0;
        int high = (log.limit() - 2) / 2;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (log.get(2 + 2 * middle) <= expiredUpTo) {
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
    private static int firstTotalAtLeast(LongBuffer log, int first, long target) {
        int low = (first - 2) / 2;
        int high = (log.limit() - 2) / 2 - 1;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (log.get(3 + 2 * middle) < target) {
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
