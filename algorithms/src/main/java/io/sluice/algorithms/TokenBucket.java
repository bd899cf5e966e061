package io.sluice.algorithms;

import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import org.jspecify.annotations.Nullable;

/**
 * token-bucket (id 4): state {@code [tag, tokens, lastRefill]}; one token every
 * {@code T = ceil(D / P)} microseconds up to the burst; see docs/algorithms.md.
 */
final class TokenBucket implements Algorithm {

    static final int ID = 4;
    static final long TAG = ID * 256 + 1;
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
        Checks.bucketFits(NAME, permits, burst, periodMicros);
    }

    @Override
    public Transition transition(long @Nullable [] storedState, long nowMicros, Limit limit, long cost) {
        Checks.cost(cost);
        long[] state = storedState != null ? storedState : Checks.NO_STATE;
        long burst = limit.burst();
        long interval = Checks.tokenInterval(limit.permits(), limit.periodMicros());
        boolean stored = Checks.hasTag(state, TAG) && state.length == 3;
        long tokens = stored ? state[1] : burst;
        long last = stored ? state[2] : nowMicros;
        if (nowMicros > last) {
            long added = (nowMicros - last) / interval;
            if (tokens + added >= burst) {
                tokens = burst;
                last = nowMicros;
            } else {
                tokens += added;
                last += added * interval;
            }
        }
        // Burst lowered under a full stored bucket; the refill time is kept, so a clock that
        // went back refills nothing.
        tokens = Math.min(tokens, burst);
        long progress = nowMicros - last;
        if (cost > burst) {
            return Transition.costExceedsCapacity(tokens, resetAfter(tokens, burst, interval, progress), storedState);
        }
        if (tokens >= cost) {
            long remaining = tokens - cost;
            return Transition.allowed(remaining, resetAfter(remaining, burst, interval, progress),
                    new long[] {TAG, remaining, last});
        }
        return Transition.denied(tokens, resetAfter(tokens, burst, interval, progress),
                (cost - tokens) * interval - progress, storedState);
    }

    private static long resetAfter(long remaining, long burst, long interval, long progress) {
        return remaining == burst ? 0 : (burst - remaining) * interval - progress;
    }

    @Override
    public String toString() {
        return NAME;
    }
}
