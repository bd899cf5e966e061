package io.sluice.algorithms;

import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import java.util.List;
import java.util.Objects;

/**
 * Which limits can be leased (a batch of tokens taken at once for one instance to spend
 * locally, see {@link KeyState#lease}) and for how long a lease may be spent.
 *
 * <p>Fixed window, sliding window counter, token bucket and GCRA can be leased. The sliding
 * log cannot: a lease charges its tokens at the lease's time, the log forgets them a period
 * later, and tokens spent after that would be admitted twice. A request with a sliding-log
 * limit (or an algorithm of your own) goes to the store once per request instead.
 */
public final class Leasing {

    private Leasing() {
    }

    /** Whether limits of this algorithm can be leased. */
    public static boolean supports(Algorithm algorithm) {
        Objects.requireNonNull(algorithm, "algorithm");
        return Algorithms.isBuiltIn(algorithm) && algorithm instanceof LeaseReturn;
    }

    /** Whether every one of these limits can be leased. */
    public static boolean supportsAll(List<Limit> limits) {
        for (Limit limit : limits) {
            if (!supports(limit.algorithm())) {
                return false;
            }
        }
        return true;
    }

    /**
     * The last instant (exclusive, microseconds since the epoch) at which tokens of a lease
     * taken at {@code takenAtMicros} may be spent: the end of the window it was charged in,
     * for the shortest window among {@code limits}, so that a token charged to one window is
     * never spent in the next; {@link Long#MAX_VALUE} when no limit has windows (buckets).
     */
    public static long spendableUntil(List<Limit> limits, long takenAtMicros) {
        long until = Long.MAX_VALUE;
        for (Limit limit : limits) {
            Algorithm algorithm = limit.algorithm();
            if (algorithm == Algorithms.FIXED_WINDOW || algorithm == Algorithms.SLIDING_WINDOW_COUNTER) {
                long period = limit.periodMicros();
                until = Math.min(until, takenAtMicros - Math.floorMod(takenAtMicros, period) + period);
            }
        }
        return until;
    }

    /** The limit's algorithm as a {@link LeaseReturn}, or an error naming it when it cannot be leased. */
    static LeaseReturn of(Limit limit) {
        if (!supports(limit.algorithm())) {
            throw new IllegalArgumentException("limit '" + limit.name() + "' uses " + limit.algorithm().name()
                    + ", which cannot be leased (only fixed-window, sliding-window-counter, token-bucket and gcra"
                    + " can): decide its requests one by one with tryAcquire");
        }
        return (LeaseReturn) limit.algorithm();
    }
}
