package io.sluice.algorithms;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import org.jspecify.annotations.Nullable;

/**
 * gcra (id 5): state {@code [tag, tat, fraction]}, the theoretical arrival time
 * {@code tat + fraction / tokensPerMicro} microseconds of the exact rate (see
 * {@link BucketRate}); token-bucket behaviour in one time; see docs/algorithms.md.
 */
final class Gcra implements Probing, LeaseReturn {

    static final int ID = 5;
    /** Version 2: the arrival time with its fraction of a microsecond. */
    static final long TAG = ID * 256 + 2;
    /** Version 1, {@code [tag, tat]} in whole microseconds: read, converted. */
    static final long TAG_V1 = ID * 256 + 1;
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
        BucketRate.derive(NAME, permits, burst, periodMicros);
    }

    @Override
    public Transition transition(long @Nullable [] state, long nowMicros, Limit limit, long cost, NewState newState) {
        long burst = limit.burst();
        BucketRate rate = BucketRate.of(NAME, limit);
        long perMicro = rate.tokensPerMicro();
        long tau = rate.units(burst);
        long ahead = arrival(state, nowMicros) - nowMicros;
        long fraction = fraction(state, nowMicros, perMicro);
        long tauMicros = tau / perMicro;
        boolean exceeds = cost > burst;
        boolean allowed = false;
        long remaining = 0;
        long resetAfter;
        long retryAfter = 0;
        long next = 0;
        if (ahead > tauMicros) {
            // Owes more than the whole bucket (a clock that went back, a burst lowered): counted
            // in microseconds, as the owed units could pass 2^53.
            resetAfter = ahead + (fraction > 0 ? 1 : 0);
            retryAfter = exceeds ? 0 : retryBeyondBucket(rate, tau, ahead, fraction, cost);
        } else {
            long owed = ahead * perMicro + fraction;
            next = exceeds ? owed : owed + rate.units(cost);
            allowed = !exceeds && next <= tau;
            remaining = rate.tokens(allowed ? tau - next : Math.max(0, tau - owed));
            resetAfter = rate.microsToAdd(allowed ? next : owed);
            retryAfter = allowed || exceeds ? 0 : rate.microsToAdd(next - tau);
        }
        // One Transition, built in one place (see Probing).
        return Transition.of(allowed, exceeds, remaining, resetAfter, retryAfter,
                !allowed ? state : owing(newState, state, nowMicros, next, perMicro));
    }

    /*
     * The helpers below keep transition under the JIT's size for inlining a hot method (325
     * bytes of bytecode), without which its Transition is allocated (see Probing, also for the
     * size of its compiled code).
     */

    /** The stored arrival time, or now when none is stored or it has passed. */
    private static long arrival(long @Nullable [] state, long nowMicros) {
        if (state != null && (state.length == 3 && state[0] == TAG || state.length == 2 && state[0] == TAG_V1)) {
            return Math.max(state[1], nowMicros);
        }
        return nowMicros;
    }

    /** The stored arrival time's fraction of a microsecond; 0 when none is stored, in format 1, or passed. */
    private static long fraction(long @Nullable [] state, long nowMicros, long perMicro) {
        return state != null && state.length == 3 && state[0] == TAG && state[1] >= nowMicros
                ? Math.max(0, Math.min(state[2], perMicro - 1)) : 0;
    }

    /** The wait of a request of {@code cost} that owes {@code ahead} more than the whole bucket, in microseconds. */
    private static long retryBeyondBucket(BucketRate rate, long tau, long ahead, long fraction, long cost) {
        long perMicro = rate.tokensPerMicro();
        long tauMicros = tau / perMicro;
        long beyond = fraction + rate.units(cost) - (tau - tauMicros * perMicro);
        return ahead - tauMicros + rate.microsToAdd(beyond);
    }

    /** The state of a bucket owing {@code units} at {@code nowMicros}, made as {@code newState} says. */
    private static long[] owing(NewState newState, long @Nullable [] old, long nowMicros, long units, long perMicro) {
        return Checks.written(newState, old, TAG, nowMicros + units / perMicro, units % perMicro);
    }

    /**
     * Moves the arrival time back by the tokens' emission interval, never before now, less
     * the time since the lease: while the tokens were out the arrival time could reach now,
     * where without the lease it would have reached it sooner (see {@link TokenBucket}). An
     * arrival time more than the whole bucket ahead (a clock that went back) is left as it is.
     */
    @Override
    public long @Nullable [] giveBack(long @Nullable [] state, long nowMicros, Limit limit, long takenAtMicros,
                                      long unused) {
        long tat;
        long fraction = 0;
        BucketRate rate = BucketRate.of(NAME, limit);
        long perMicro = rate.tokensPerMicro();
        if (state != null && state.length == 3 && state[0] == TAG) {
            tat = state[1];
            fraction = Math.max(0, Math.min(state[2], perMicro - 1));
        } else if (state != null && state.length == 2 && state[0] == TAG_V1) {
            tat = state[1];
        } else {
            return null;
        }
        long ahead = tat - nowMicros;
        long tau = rate.units(limit.burst());
        if (ahead < 0 || ahead > tau / perMicro) {
            return null;
        }
        long owed = ahead * perMicro + fraction;
        long back = TokenBucket.returnable(rate, tau, Math.min(unused, limit.burst()), nowMicros - takenAtMicros);
        if (back <= 0) {
            return null;
        }
        long left = Math.max(0, owed - back);
        return new long[] {TAG, nowMicros + left / perMicro, left % perMicro};
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
