package io.sluice.store.hazelcast;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.List;

/**
 * A {@link Decision} as the {@code long[]} an entry processor returns: Hazelcast serializes
 * it natively, and the caller rebuilds the decision around its own {@link Limit} objects.
 * Layout: reason ordinal, index of the binding limit, remaining, resetAfter and retryAfter
 * in microseconds (-1 when absent).
 */
final class DecisionCodec {

    private static final Decision.Reason[] REASONS = Decision.Reason.values();

    private DecisionCodec() {
    }

    static long[] encode(Decision decision, List<Limit> limits) {
        return new long[] {
            decision.reason().ordinal(),
            limits.indexOf(decision.binding()),
            decision.remaining(),
            micros(decision.resetAfter()),
            decision.retryAfter().map(DecisionCodec::micros).orElse(-1L)
        };
    }

    static Decision decode(long[] encoded, List<Limit> limits) {
        Decision.Reason reason = REASONS[(int) encoded[0]];
        Limit binding = limits.get((int) encoded[1]);
        long remaining = encoded[2];
        long resetAfterMicros = encoded[3];
        switch (reason) {
            case WITHIN_LIMIT:
                return Decision.allowed(binding, remaining, resetAfterMicros);
            case LIMIT_EXCEEDED:
                return Decision.limitExceeded(binding, remaining, resetAfterMicros, encoded[4]);
            case COST_EXCEEDS_CAPACITY:
                return Decision.costExceedsCapacity(binding, remaining, resetAfterMicros);
            default:
                throw new IllegalArgumentException("an entry processor cannot answer " + reason);
        }
    }

    private static long micros(Duration duration) {
        return duration.getSeconds() * 1_000_000L + duration.getNano() / 1_000;
    }
}
