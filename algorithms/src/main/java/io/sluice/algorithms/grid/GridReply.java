package io.sluice.algorithms.grid;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A {@link Decision} as the {@code long[]} a member answers: reason, index of the binding
 * limit (found by name, the identity of a limit's state), remaining, reset-after and
 * retry-after in microseconds (-1 when absent). The caller rebuilds the decision around its
 * own {@link Limit} objects.
 */
public final class GridReply {

    /** How many longs a reply is. */
    static final int LENGTH = 5;
    private static final Decision.Reason[] REASONS = Decision.Reason.values();

    private GridReply() {
    }

    /**
     * The reply for {@code decision}, made against {@code limits}.
     *
     * @throws IllegalArgumentException when the binding limit is not among {@code limits}
     */
    public static long[] encode(Decision decision, List<Limit> limits) {
        return new long[] {
            decision.reason().ordinal(),
            indexOf(decision.binding(), limits),
            decision.remaining(),
            micros(decision.resetAfter()),
            decision.retryAfter().map(GridReply::micros).orElse(-1L)
        };
    }

    /** Whether any of {@code replies} (one after the other, as a batch's) admitted. */
    static boolean admitsAny(long[] replies) {
        for (int i = 0; i < replies.length; i += LENGTH) {
            if (replies[i] == Decision.Reason.WITHIN_LIMIT.ordinal()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The decision a member replied, bound to the caller's {@code limits}, in the order sent.
     *
     * @throws IllegalArgumentException when the reply is not one a member gives for these limits
     */
    public static Decision decode(long[] reply, List<Limit> limits) {
        Objects.requireNonNull(reply, "reply");
        if (reply.length != LENGTH || reply[1] < 0 || reply[1] >= limits.size()
                || reply[0] < 0 || reply[0] >= REASONS.length) {
            throw new IllegalArgumentException("not a reply to a request of " + limits.size() + " limits: "
                    + java.util.Arrays.toString(reply));
        }
        Limit binding = limits.get((int) reply[1]);
        switch (REASONS[(int) reply[0]]) {
            case WITHIN_LIMIT:
                return Decision.allowed(binding, reply[2], reply[3]);
            case LIMIT_EXCEEDED:
                return Decision.limitExceeded(binding, reply[2], reply[3], reply[4]);
            case COST_EXCEEDS_CAPACITY:
                return Decision.costExceedsCapacity(binding, reply[2], reply[3]);
            default:
                throw new IllegalArgumentException("a member never replies " + REASONS[(int) reply[0]]);
        }
    }

    private static int indexOf(Limit binding, List<Limit> limits) {
        for (int i = 0; i < limits.size(); i++) {
            if (limits.get(i).name().equals(binding.name())) {
                return i;
            }
        }
        throw new IllegalArgumentException("binding limit " + binding.name() + " is not among " + limits);
    }

    private static long micros(Duration duration) {
        return duration.getSeconds() * 1_000_000L + duration.getNano() / 1_000;
    }
}
