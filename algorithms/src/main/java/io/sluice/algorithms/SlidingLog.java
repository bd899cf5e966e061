package io.sluice.algorithms;

import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import org.jspecify.annotations.Nullable;

/**
 * sliding-log (id 2): state {@code [tag, base, t1, s1, t2, s2, ...]}, one entry per distinct
 * microsecond with an admitted request in the last period, times strictly increasing, where
 * {@code s_i} is {@code base} plus the costs of entries 1 to i (a running total); see
 * docs/algorithms.md.
 *
 * <p>The running total makes a decision's cost independent of the log's length where it can
 * be: the live entries are found by a search on the times, the cost they hold is one
 * subtraction, and a denial's retry time is a search on the totals. Both searches gallop from
 * the oldest entry they may return, so a decision reads O(log k) entries, k the entries that
 * expired since the last admission or that must expire before the request fits (few on a log
 * decided often), never more than O(log n); a denial allocates nothing, also on a log still
 * in its {@link KeyState} encoding (read in place:
 * {@link #transition(LongBuffer, long, Limit, long, boolean)}).
 *
 * <p>An admission's new state is, by the {@link Algorithm} contract, a new array: a copy of
 * the live entries. {@link KeyState}, which owns its arrays, asks for it
 * {@linkplain NewState#IN_PLACE in place} instead, and gets the log {@code [TAG_IN_PLACE,
 * head, end, base, t1, s1, ...]} with room to spare: the live entries lie from index
 * {@code head} to {@code end}, the total before the entry at index i is at i - 1 (the
 * {@code base} for the first), expired entries are dropped by moving {@code head}, an
 * admission is written at {@code end}. Only when the array is full are the live entries moved
 * to its start, or into an array twice their length when they fill more than half of it (or
 * less than an eighth): a move of n entries leaves room for at least n more, so the next
 * move comes at least n admissions later, and an admission is amortised O(1) whatever the
 * log's length. That layout
 * never leaves {@code KeyState}: its encoding writes format 2. Format 1 (costs instead of
 * totals) is still read.
 */
final class SlidingLog implements Probing {

    static final int ID = 2;
    static final long TAG = ID * 256 + 2;
    /** The tag of format 1: {@code [tag, t1, c1, t2, c2, ...]}, costs instead of running totals. */
    static final long TAG_V1 = ID * 256 + 1;
    /**
     * The tag of the log {@link KeyState} changes in place; never stored outside this JVM's
     * {@code KeyState} arrays (its encoding is format 2).
     */
    static final long TAG_IN_PLACE = ID * 256 + 3;
    /** The tag of a {@linkplain #isSplice splice}: never a state that is stored. */
    static final long TAG_SPLICE = ID * 256 + 4;
    static final String NAME = "sliding-log";

    /** Where an in-place log keeps the index of its first kept entry, and the index past its last. */
    static final int HEAD = 1;
    static final int END = 2;
    /** The index of an in-place log's first entry, once moved to the start; its base is at the index before. */
    static final int FIRST = 4;
    /** The fewest longs an in-place log has room for: four entries. */
    static final int MIN_ROOM = 8;

    /**
     * The most permits a sliding log takes: it keeps one entry per admitted request, so both
     * memory per key (about 160 KB, twice that for the room an in-place log keeps) and the
     * work of a grid store's admission (which writes the whole log) stay bounded.
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
     * several limits, since another limit may deny it: then building the log would be wasted.
     * With {@link NewState#NEW} the new state is a log of format 2 with the live entries; with
     * {@link NewState#IN_PLACE} an in-place log, {@code storedState} itself when it is one.
     */
    @Override
    public Transition transition(long @Nullable [] storedState, long nowMicros, Limit limit, long cost,
                                 NewState newState) {
        long[] state = storedState != null ? storedState : Checks.NO_STATE;
        if (isInPlace(state)) {
            return transition(LongBuffer.wrap(state), (int) state[HEAD], (int) state[END], storedState, nowMicros,
                    limit, cost, newState);
        }
        long[] log = Checks.hasTag(state, TAG) && state.length % 2 == 0 ? state : fromFormat1(state);
        return transition(LongBuffer.wrap(log), 2, log.length, storedState, nowMicros, limit, cost, newState);
    }

    /**
     * As {@link #transition(long[], long, Limit, long, NewState)} on a state read in place (a
     * {@link KeyState} encoding's fixed-width longs): a denial reads the entries its two
     * searches visit. With {@code build}, an admission's state is a {@linkplain #isSplice
     * splice}: what to write in place of this log (its live entries and the admission), which
     * {@code KeyState} keeps beside the encoding and writes from it ({@link #writeSpliced}), so
     * that a grid store's admission copies the log once, into the new value.
     */
    Transition transition(LongBuffer state, long nowMicros, Limit limit, long cost, boolean build) {
        if (state.limit() < 2 || state.limit() % 2 != 0 || state.get(0) != TAG) {
            long[] other = new long[state.limit()];
            state.get(0, other);
            return transition(other, nowMicros, limit, cost, build ? NewState.NEW : NewState.NONE);
        }
        Transition transition = transition(state, 2, state.limit(), null, nowMicros, limit, cost, NewState.NONE);
        if (!build || !transition.allowed()) {
            return transition;
        }
        return Transition.allowed(transition.remaining(), transition.resetAfterMicros(),
                splice(state, nowMicros, limit.periodMicros(), cost));
    }

    /** The splice of an admission of {@code cost} at {@code nowMicros} on the log of format 2 {@code log}. */
    private static long[] splice(LongBuffer log, long nowMicros, long period, long cost) {
        int end = log.limit();
        int first = firstLive(log, 2, end, nowMicros - period);
        long lastTime = first == end ? 0 : log.get(end - 2);
        boolean merge = first < end && lastTime >= nowMicros;
        return new long[] {TAG_SPLICE, first, merge ? lastTime : nowMicros, log.get(end - 1) + cost, merge ? 1 : 0};
    }

    /**
     * Whether {@code state} is a splice: {@code [TAG_SPLICE, first, time, total, merged]}, the
     * log of format 2 that an admission on an encoded log leaves, described by what it keeps
     * of that log (its entries from index {@code first}, the total before them as the base)
     * and the admission: an entry {@code (time, total)}, which replaces the newest when
     * {@code merged} is 1. Never stored: {@link KeyState} writes the log it stands for.
     */
    static boolean isSplice(long[] state) {
        return state.length == 5 && state[0] == TAG_SPLICE;
    }

    /** The log of format 2 that {@code splice} of {@code log} stands for, as a new array. */
    static long[] spliced(LongBuffer log, long[] splice) {
        return appended(log, (int) splice[1], log.limit(), splice[2], splice[3], splice[4] == 1);
    }

    /** The longs of the log of format 2 that {@code splice} of a log of {@code logLongs} longs stands for. */
    static int splicedLength(int logLongs, long[] splice) {
        return 2 + logLongs - (int) splice[1] + (splice[4] == 1 ? 0 : 2);
    }

    /**
     * Writes the log of format 2 that {@code splice} of the encoded log {@code log} (a heap
     * buffer's big-endian longs) stands for into {@code out}, as fixed-width longs: the kept
     * entries' bytes copied as they are (rebased, long by long, only when the base grew large).
     */
    static void writeSpliced(ByteBuffer log, long[] splice, ByteBuffer out) {
        int first = (int) splice[1];
        boolean merge = splice[4] == 1;
        int end = log.remaining() / Long.BYTES;
        int kept = end - first - (merge ? 2 : 0);
        long prior = log.getLong(log.position() + Long.BYTES * (first - 1));
        long rebase = prior > REBASE_ABOVE ? prior : 0;
        out.putLong(TAG).putLong(prior - rebase);
        if (rebase == 0) {
            out.put(log.array(), log.arrayOffset() + log.position() + Long.BYTES * first, Long.BYTES * kept);
        } else {
            for (int i = first; i < first + kept; i += 2) {
                out.putLong(log.getLong(log.position() + Long.BYTES * i))
                        .putLong(log.getLong(log.position() + Long.BYTES * (i + 1)) - rebase);
            }
        }
        out.putLong(splice[2]).putLong(splice[3] - rebase);
    }

    /**
     * The transition on the entries of {@code log} from index {@code start} to {@code end}, the
     * total before them at {@code start - 1}; {@code storedState} is what a denial leaves as
     * its state, and what an admission {@link NewState#IN_PLACE} writes into when it is an
     * in-place log.
     */
    private static Transition transition(LongBuffer log, int start, int end, long @Nullable [] storedState,
                                         long nowMicros, Limit limit, long cost, NewState newState) {
        Checks.cost(cost);
        long permits = limit.permits();
        long period = limit.periodMicros();
        int first = firstLive(log, start, end, nowMicros - period);
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
                : log.get(firstTotalAtLeast(log, first, end, total + cost - permits) - 1) + period - nowMicros;
        // One Transition, built in one place (see Probing).
        return Transition.of(allowed, exceeds, allowed ? permits - used - cost : Math.max(0, permits - used),
                allowed ? entryTime + period - nowMicros : allExpireAfter, retryAfter,
                !allowed ? storedState : built(newState, storedState, log, first, end, entryTime, total + cost, merge));
    }

    /**
     * An admission's new state as {@code newState} says (see {@link #appended} and
     * {@link #appendedInPlace}); apart from the transition, which then stays small enough for
     * the JIT to inline it (see {@link Probing}).
     */
    private static long[] built(NewState newState, long @Nullable [] storedState, LongBuffer log, int first, int end,
                                long entryTime, long newTotal, boolean merge) {
        if (newState == NewState.NONE) {
            return Checks.NO_STATE;
        }
        return newState == NewState.NEW ? appended(log, first, end, entryTime, newTotal, merge)
                : appendedInPlace(storedState, log, first, end, entryTime, newTotal, merge);
    }

    /**
     * The live entries of {@code log} from {@code first} to {@code end}, with the admitted cost
     * added at {@code entryTime} (to the newest entry when {@code merge}), as a new log of
     * format 2, rebased when the base grew large.
     */
    private static long[] appended(LongBuffer log, int first, int end, long entryTime, long newTotal,
                                   boolean merge) {
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
     * As {@link #appended}, as an in-place log: {@code stored} itself when it is one, its
     * expired entries dropped by moving its head, the new entry written at its end; its live
     * entries moved only when it is full (see the class's comment), into a new array when they
     * fill more than half of it or less than an eighth.
     */
    private static long[] appendedInPlace(long @Nullable [] stored, LongBuffer log, int first, int end,
                                          long entryTime, long newTotal, boolean merge) {
        long[] own = stored != null && isInPlace(stored) ? stored : null;
        int added = merge ? 0 : 2;
        if (own != null && end + added <= own.length) {
            return appendInPlace(own, first, end, entryTime, newTotal, merge);
        }
        int kept = end - first + added;
        int room = own == null ? 0 : own.length - FIRST;
        long[] next;
        if (own == null || 2 * kept > room || 8 * kept < room && room > MIN_ROOM) {
            next = new long[FIRST + Math.max(MIN_ROOM, 2 * kept)];
            next[0] = TAG_IN_PLACE;
        } else {
            next = own;
        }
        // The base and the live entries, to the start (of the same array too: arraycopy allows the overlap).
        if (own != null) {
            System.arraycopy(own, first - 1, next, FIRST - 1, end - first + 1);
        } else {
            log.get(first - 1, next, FIRST - 1, end - first + 1);
        }
        return appendInPlace(next, FIRST, FIRST + end - first, entryTime, newTotal, merge);
    }

    /**
     * Writes an admission into the in-place log {@code next} whose live entries lie from
     * {@code head} to {@code last}, with room for one more after them: rebased when the base
     * grew large, the new entry appended or merged into the newest.
     */
    private static long[] appendInPlace(long[] next, int head, int last, long entryTime, long newTotal,
                                        boolean merge) {
        long prior = next[head - 1];
        long total = newTotal;
        if (prior > REBASE_ABOVE) {
            for (int i = head - 1; i < last; i += 2) {
                next[i] -= prior;
            }
            total -= prior;
        }
        int end = last;
        if (!merge) {
            next[end] = entryTime;
            end += 2;
        }
        next[end - 1] = total;
        next[HEAD] = head;
        next[END] = end;
        return next;
    }

    /** Whether {@code state} is an in-place log ({@link #TAG_IN_PLACE}). */
    static boolean isInPlace(long[] state) {
        return state.length >= FIRST && state[0] == TAG_IN_PLACE;
    }

    /** The length of an in-place log as a log of format 2: {@code [tag, base, t1, s1, ...]}. */
    static int lengthAsFormat2(long[] inPlace) {
        return 2 + (int) (inPlace[END] - inPlace[HEAD]);
    }

    /**
     * The long at {@code index} of an in-place log as a log of format 2: its tag, its base
     * (the total before its head), then its live entries.
     */
    static long getAsFormat2(long[] inPlace, int index) {
        return index == 0 ? TAG : inPlace[(int) inPlace[HEAD] - 2 + index];
    }

    /**
     * The index of the first entry, from the one at {@code start}, whose time is above
     * {@code expiredUpTo} ({@code end} when none is): a galloping search, which reads the
     * times of entries 0, 1, 3, 7, ... from {@code start} until one is live, then searches
     * between the last two read, so that it reads O(log k) entries when the first k expired.
     * The running total before the entry found is at the index before.
     */
    private static int firstLive(LongBuffer log, int start, int end, long expiredUpTo) {
        int count = (end - start) / 2;
        int low = 0;
        int bound = 1;
        while (bound <= count && log.get(start + 2 * (bound - 1)) <= expiredUpTo) {
            low = bound;
            bound <<= 1;
        }
        int high = Math.min(bound - 1, count);
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (log.get(start + 2 * middle) <= expiredUpTo) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return start + 2 * low;
    }

    /**
     * The index of the time of the first entry, from {@code first} on, whose running total is
     * at least {@code target}, plus one: the index of that total; a galloping search as
     * {@link #firstLive}'s. One exists when called.
     */
    private static int firstTotalAtLeast(LongBuffer log, int first, int end, long target) {
        int count = (end - first) / 2;
        int low = 0;
        int bound = 1;
        while (bound < count && log.get(first + 2 * (bound - 1) + 1) < target) {
            low = bound;
            bound <<= 1;
        }
        int high = Math.min(bound - 1, count - 1);
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (log.get(first + 2 * middle + 1) < target) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return first + 2 * low + 1;
    }

    /**
     * A state of format 1 as format 2 (running totals from a base of 0); the fresh log otherwise.
     *
     * @throws IllegalStateException when it is a {@link ChunkedLog} head
     */
    private static long[] fromFormat1(long[] state) {
        if (ChunkedLog.isHead(state)) {
            // Its oldest entries are in chunks only a grid store's caller reads: deciding without
            // them would admit what they hold. A failure of the store instead, never a fresh log.
            throw new IllegalStateException("a sliding log kept as a head and chunks is decided only with its chunks"
                    + " (KeyState.tryAcquire with LogChunks)");
        }
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
