package io.sluice.simulator;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Limit;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The ideal: what one exact limiter would admit of a client's requests, if it saw all of
 * them, in order of arrival, in one place. The exact limiter is the reference algorithms of
 * {@code sluice-algorithms} for the same limits, checked all-or-nothing, on a state of its
 * own, at the requests' arrival times; for the sliding window counter, an approximation of a
 * sliding window, it is the sliding log, the exact sliding window. Where instances, stores or
 * leases lose or invent a decision, the admitted count leaves the ideal.
 */
final class Ideal {

    /** The definition above, for the command's help and output; lines end with {@code %n} (a format string). */
    static final String DEFINITION =
            "ideal = what one exact limiter would admit of each client's requests if it saw%n"
            + "all of them in one place, summed over the clients: the reference algorithm%n"
            + "of the same limit, on its own state, at the requests' arrival times. For%n"
            + "sliding-window-counter, which approximates a sliding window, the exact limiter%n"
            + "is sliding-log. error = (admitted - ideal) / ideal; over = requests admitted%n"
            + "beyond each client's ideal, summed over the clients.";

    private Ideal() {
    }

    /**
     * The exact limiter whose decisions on a client's requests alone are the ideal for {@code limit}.
     *
     * @throws IllegalArgumentException naming the value when the sliding log cannot hold the
     *     permits of a sliding window counter's limit
     */
    static Limit exactLimiter(Limit limit) {
        return limit.algorithm() == Algorithms.SLIDING_WINDOW_COUNTER
                ? Limit.of(Algorithms.SLIDING_LOG, limit.permits(), limit.period()).named(limit.name())
                : limit;
    }

    /** The exact limiter of each of {@code limits}, by {@link #exactLimiter(Limit)}. */
    static List<Limit> exactLimiters(List<Limit> limits) {
        return limits.stream().map(Ideal::exactLimiter).collect(Collectors.toList());
    }
}
