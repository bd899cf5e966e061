package io.sluice.algorithms;

import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import org.jspecify.annotations.Nullable;

/**
 * token-bucket (id 4): state {@code [tag, units, last]}, the tokens in units of
 * {@code 1 / scale} token (see {@link BucketRate}) at the time {@code last}, up to
 * {@code B * scale}; see docs/algorithms.md.
 */
final class TokenBucket implements Algorithm {

    static final int ID = 4;
    /** Version 2: tokens in units of the exact rate. */
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
        BucketRate.of(NAME, permits, burst, periodMicros);
    }

    @Override
    public Transition transition(long @Nullable [] state, long nowMicros, Limit limit, long cost) {
        Checks.cost(cost);
        long burst = limit.burst();
        BucketRate rate = BucketRate.of(NAME, limit.permits(), burst, limit.periodMicros());
        long capacity = rate.units(burst);
        long units = capacity;
        long last = nowMicros;
        if (state != null && state.length == 3 && (state[0] == TAG || state[0] == TAG_V1)) {
            // Burst lowered under a full stored bucket: capped. A version 1 state holds whole tokens.
            units = state[0] == TAG ? Math.min(state[1], capacity) : rate.units(Math.min(state[1], burst));
            last = state[2];
        }
        if (nowMicros > last) {
            // Capped at the time to fill, so that the product stays below the capacity.
            long elapsed = nowMicros - last;
            units = elapsed >= rate.microsToAdd(capacity - units) ? capacity : units + elapsed * rate.tokensPerMicro();
            last = nowMicros;
        }
        // A clock that went back refills nothing until it passes last again.
        long lag = last - nowMicros;
        if (cost > burst) {
            return Transition.costExceedsCapacity(rate.tokens(units), resetAfter(rate, capacity, units, lag), state);
        }
        long needed = rate.units(cost);
        if (units >= needed) {
            long left = units - needed;
            return Transition.allowed(rate.tokens(left), resetAfter(rate, capacity, left, lag),
                    new long[] {TAG, left, last});
        }
        return Transition.denied(rate.tokens(units), resetAfter(rate, capacity, units, lag),
                lag + rate.microsToAdd(needed - units), state);
    }

    private static long resetAfter(BucketRate rate, long capacity, long units, long lag) {
        return units == capacity ? 0 : lag + rate.microsToAdd(capacity - units);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
