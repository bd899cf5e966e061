package io.sluice.store.ignite;

import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.TimeSource;
import java.time.Duration;
import java.util.List;
import javax.cache.processor.MutableEntry;
import org.apache.ignite.Ignite;
import org.apache.ignite.cache.CacheEntryProcessor;
import org.apache.ignite.resources.IgniteInstanceResource;

/**
 * Decides one request for one key on the key's primary node: decodes the key's state, applies
 * the reference algorithms at the primary's time, and writes the new state when admitted.
 *
 * <p>The cache is atomic, so Ignite runs this once, on the primary, and sends the written value
 * (with its expiry time) to the backups; they never run it with their own clocks. The result is
 * the decision in the form of {@link #encode}.
 */
final class DecideProcessor implements CacheEntryProcessor<String, byte[], long[]> {

    private static final long serialVersionUID = 1L;

    /** {@link #fixedNowMicros} when the primary's clock decides. */
    static final long MEMBER_CLOCK = Long.MIN_VALUE;

    private static final Decision.Reason[] REASONS = Decision.Reason.values();
    private static final int REASON = 0;
    private static final int BINDING = 1;
    private static final int REMAINING = 2;
    private static final int RESET_AFTER = 3;
    private static final int RETRY_AFTER = 4;

    private final LimitSpecs limits;
    private final long cost;
    private final long fixedNowMicros;

    @IgniteInstanceResource
    private transient Ignite member;

    DecideProcessor(LimitSpecs limits, long cost, long fixedNowMicros) {
        this.limits = limits;
        this.cost = cost;
        this.fixedNowMicros = fixedNowMicros;
    }

    @Override
    public long[] process(MutableEntry<String, byte[]> entry, Object... arguments) {
        StateExpiry.clear();
        TimeSource clock = fixedNowMicros != MEMBER_CLOCK ? null : MemberClock.of(member);
        long now = clock != null ? clock.nowMicros() : fixedNowMicros;
        byte[] stored = entry.getValue();
        KeyState state = stored == null ? KeyState.empty() : KeyState.decode(stored);
        List<Limit> decoded = limits.toLimits();
        Decision decision = state.tryAcquire(decoded, now, cost);
        if (decision.allowed()) {
            if (state.isEmpty()) {
                entry.remove();
            } else {
                if (clock != null && MemberClock.isSystem(clock)) {
                    // A test's clock has no relation to the real time Ignite expires by;
                    // under it the state is dropped by the algorithms' time alone.
                    StateExpiry.handOver(state.expiresAtMicros() - now);
                }
                entry.setValue(state.encode());
            }
        }
        return encode(decision, decoded);
    }

    /** The decision as longs: reason, index of the binding limit, remaining, reset and retry micros. */
    static long[] encode(Decision decision, List<Limit> limits) {
        long[] encoded = new long[5];
        encoded[REASON] = decision.reason().ordinal();
        encoded[BINDING] = indexOf(decision.binding(), limits);
        encoded[REMAINING] = decision.remaining();
        encoded[RESET_AFTER] = micros(decision.resetAfter());
        encoded[RETRY_AFTER] = decision.retryAfter().map(DecideProcessor::micros).orElse(-1L);
        return encoded;
    }

    /** The decision that {@link #encode} encoded, bound to the caller's own limit objects. */
    static Decision decode(long[] encoded, List<Limit> limits) {
        Limit binding = limits.get((int) encoded[BINDING]);
        Decision.Reason reason = REASONS[(int) encoded[REASON]];
        switch (reason) {
            case WITHIN_LIMIT:
                return Decision.allowed(binding, encoded[REMAINING], encoded[RESET_AFTER]);
            case LIMIT_EXCEEDED:
                return Decision.limitExceeded(binding, encoded[REMAINING], encoded[RESET_AFTER],
                        encoded[RETRY_AFTER]);
            case COST_EXCEEDS_CAPACITY:
                return Decision.costExceedsCapacity(binding, encoded[REMAINING], encoded[RESET_AFTER]);
            default:
                throw new IllegalStateException("a processor never answers " + reason);
        }
    }

    private static int indexOf(Limit binding, List<Limit> limits) {
        for (int i = 0; i < limits.size(); i++) {
            if (limits.get(i).name().equals(binding.name())) {
                return i;
            }
        }
        throw new IllegalStateException("binding limit " + binding.name() + " is not among " + limits);
    }

    private static long micros(Duration duration) {
        return duration.getSeconds() * 1_000_000L + duration.getNano() / 1_000;
    }
}
