package io.sluice.algorithms;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import org.jspecify.annotations.Nullable;

/**
 * token-bucket (id 4): state {@code [tag, units, last, scale]}, the tokens in units of
 * {@code 1 / scale} token (see {@link BucketRate}) at the time {@code last}, up to
 * {@code B * scale}; the scale is kept so that a state written under other limit parameters
 * keeps its whole tokens; see docs/algorithms.md.
 */
final class TokenBucket implements Probing, LeaseReturn {

    static final int ID = 4;
    /** Version 2: tokens in units of the exact rate, and the units' scale. */
    static final long TAG = ID * 256 + 2;
    /** Version 1, {@code [tag, tokens, lastRefill]} in whole tokens: read, converted. */
    static final long TAG_V1 = ID * 256 + 1;
    static final String NAME = "token-bucket";

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
        long capacity = rate.units(burst);
        long stored = storedUnits(state, rate, burst);
        long units = stored < 0 ? capacity : stored;
        // A stored count (>= 0) comes from a stored state; the null check is for NullAway.
        long last = stored < 0 || state == null ? nowMicros : state[2];
        if (nowMicros > last) {
            // Capped at the time to fill, so that the product stays below the capacity.
            long elapsed = nowMicros - last;
            units = elapsed >= rate.microsToAdd(capacity - units) ? capacity : units + elapsed * rate.tokensPerMicro();
            last = nowMicros;
        }
        // A clock that went back refills nothing until it passes last again.
        long lag = last - nowMicros;
        boolean exceeds = cost > burst;
        long needed = exceeds ? 0 : rate.units(cost);
        boolean allowed = !exceeds && units >= needed;
        long left = allowed ? units - needed : units;
        // One Transition, built in one place (see Probing).
        return Transition.of(allowed, exceeds, rate.tokens(left), resetAfter(rate, capacity, left, lag),
                allowed || exceeds ? 0 : lag + rate.microsToAdd(needed - units),
                !allowed ? state : Checks.written(newState, state, TAG, left, last, rate.scale()));
    }

    /**
     * Adds the tokens back to the bucket refilled to now, capped at its capacity, less what
     * the bucket refilled since the lease: while the tokens were out, the bucket could fill
     * up, where without the lease it would have been full sooner and wasted that refill.
     */
    @Override
    public long @Nullable [] giveBack(long @Nullable [] state, long nowMicros, Limit limit, long takenAtMicros,
                                      long unused) {
        long burst = limit.burst();
        BucketRate rate = BucketRate.of(NAME, limit);
        long stored = storedUnits(state, rate, burst);
        if (stored < 0 || state == null) {
            return null;
        }
        long capacity = rate.units(burst);
        long units = stored;
        long last = state[2];
        if (nowMicros > last) {
            long elapsed = nowMicros - last;
            units = elapsed >= rate.microsToAdd(capacity - units) ? capacity : units + elapsed * rate.tokensPerMicro();
            last = nowMicros;
        }
        long returnable = returnable(rate, capacity, Math.min(unused, burst), nowMicros - takenAtMicros);
        long back = Math.min(capacity - units, returnable);
        return back <= 0 ? null : new long[] {TAG, units + back, last, rate.scale()};
    }

    /**
     * The units of {@code unused} tokens that may go back {@code sinceMicros} after their lease:
     * less the refill of that time, which the bucket without the lease may have wasted at its
     * capacity. Shared with {@link Gcra}.
     */
    static long returnable(BucketRate rate, long capacity, long unused, long sinceMicros) {
        long since = Math.max(0, sinceMicros);
        if (since >= rate.microsToAdd(capacity)) {
            return 0;
        }
        return rate.units(unused) - since * rate.tokensPerMicro();
    }

    /**
     * The units a stored state holds ({@code state[2]} is then its time), -1 when it is no
     * bucket's state. Burst lowered under a full stored bucket: capped. Written under other
     * limit parameters (another scale), or version 1 (whole tokens): the whole tokens stay,
     * capped at the burst.
     */
    private static long storedUnits(long @Nullable [] state, BucketRate rate, long burst) {
        if (state != null && state.length == 4 && state[0] == TAG && state[3] == rate.scale()) {
            return Math.min(state[1], rate.units(burst));
        }
        if (state != null && (state.length == 4 && state[0] == TAG && state[3] > 0
                || state.length == 3 && state[0] == TAG_V1)) {
            long tokens = state[0] == TAG ? state[1] / state[3] : state[1];
            return rate.units(Math.max(0, Math.min(tokens, burst)));
        }
        return -1;
    }

    private static long resetAfter(BucketRate rate, long capacity, long units, long lag) {
        return units == capacity ? 0 : lag + rate.microsToAdd(capacity - units);
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
