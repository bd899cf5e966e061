package io.sluice.algorithms;

import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/** Random limits and request sequences for the algorithm properties, and their replay. */
final class Scenarios {

    /** Late 2025 in microseconds since the epoch: times like a real clock's. */
    static final long EPOCH_2025 = 1_764_000_000_000_000L;

    /** One request: the wait since the previous one (negative: the clock went back) and its cost. */
    record Step(long waitMicros, long cost) {
    }

    /** A limit and the requests made against it from {@code startMicros}. */
    record Scenario(Limit limit, long startMicros, List<Step> steps) {
        long capacity() {
            return limit.burst();
        }
    }

    /** One request as replayed: when, what it cost, and the transition, on which input state. */
    record Replayed(long atMicros, long cost, long[] stateBefore, Transition transition) {
    }

    private Scenarios() {
    }

    static boolean isBucket(Algorithm algorithm) {
        return algorithm == Algorithms.TOKEN_BUCKET || algorithm == Algorithms.GCRA;
    }

    /** Limits small enough that a run of requests reaches them; sliding-log is kept small. */
    static Arbitrary<Limit> smallLimits(Algorithm algorithm) {
        long maxPermits = algorithm == Algorithms.SLIDING_LOG ? 50 : 200;
        Arbitrary<Long> permits = Arbitraries.oneOf(Arbitraries.longs().between(1, 5),
                Arbitraries.longs().between(1, maxPermits));
        Arbitrary<Long> period = Arbitraries.oneOf(Arbitraries.longs().between(1, 1_000),
                Arbitraries.longs().between(1, 10_000_000),
                Arbitraries.of(1_000_000L, 60_000_000L, 3_600_000_000L));
        Arbitrary<Long> burst = Arbitraries.longs().between(1, 200);
        return Combinators.combine(permits, period, burst).as((p, d, b) -> {
            Limit limit = Limit.of(algorithm, p, Duration.ofNanos(d * 1_000));
            return isBucket(algorithm) ? limit.withBurst(b) : limit;
        });
    }

    /** Limits at the largest parameters allowed, for the 2^53 checks. */
    static Arbitrary<Limit> largeLimits(Algorithm algorithm) {
        long maxPermits = algorithm == Algorithms.SLIDING_LOG ? SlidingLog.MAX_PERMITS : Limit.MAX_PERMITS;
        Arbitrary<Long> permits = Arbitraries.oneOf(Arbitraries.of(1L, maxPermits),
                Arbitraries.longs().between(1, maxPermits));
        Arbitrary<Long> period = Arbitraries.oneOf(Arbitraries.of(Limit.MAX_PERIOD.toNanos() / 1_000),
                Arbitraries.longs().between(1, Limit.MAX_PERIOD.toNanos() / 1_000));
        Arbitrary<Long> burst = Arbitraries.oneOf(Arbitraries.of(Limit.MAX_PERMITS),
                Arbitraries.longs().between(1, Limit.MAX_PERMITS));
        return Combinators.combine(permits, period, burst).as((p, d, b) -> {
            try {
                Limit limit = Limit.of(algorithm, p, Duration.ofNanos(d * 1_000));
                return isBucket(algorithm) ? withLargestBurst(limit, b) : limit;
            } catch (IllegalArgumentException notEnforceable) {
                return null;
            }
        }).filter(Objects::nonNull);
    }

    /** The limit with the largest burst up to {@code burst} that it accepts (halving until one fits). */
    private static Limit withLargestBurst(Limit limit, long burst) {
        for (long b = burst; b > 1; b /= 2) {
            try {
                return limit.withBurst(b);
            } catch (IllegalArgumentException tooLarge) {
                // a bucket of this burst cannot be enforced at the rate: try a smaller one
            }
        }
        return limit.withBurst(1);
    }

    /**
     * Requests against {@code limit}: waits from none to a few periods, costs mostly small,
     * sometimes the whole capacity; the clock goes back now and then when {@code clockBack}.
     */
    static Arbitrary<Scenario> scenarios(Arbitrary<Limit> limits, int maxSteps, boolean clockBack) {
        return limits.flatMap(limit -> {
            long period = limit.periodMicros();
            long interval = (period + limit.permits() - 1) / limit.permits();
            Arbitrary<Long> wait = Arbitraries.frequencyOf(
                    Tuple.of(4, Arbitraries.just(0L)),
                    Tuple.of(8, Arbitraries.longs().between(1, Math.max(1, interval))),
                    Tuple.of(4, Arbitraries.longs().between(1, Math.max(1, period / 4))),
                    Tuple.of(2, Arbitraries.longs().between(1, 3 * period)),
                    Tuple.of(clockBack ? 1 : 0, Arbitraries.longs().between(-2 * period, -1)));
            long capacity = limit.burst();
            Arbitrary<Long> cost = Arbitraries.frequencyOf(
                    Tuple.of(8, Arbitraries.just(1L)),
                    Tuple.of(3, Arbitraries.longs().between(1, capacity)),
                    Tuple.of(1, Arbitraries.longs().between(capacity, capacity + 1)));
            Arbitrary<List<Step>> steps = Combinators.combine(wait, cost).as(Step::new)
                    .list().ofMinSize(0).ofMaxSize(maxSteps);
            Arbitrary<Long> start = Arbitraries.longs().between(0, 1_000_000_000_000L)
                    .map(offset -> EPOCH_2025 + offset);
            return Combinators.combine(start, steps).as((s, list) -> new Scenario(limit, s, list));
        });
    }

    /** Replays every step from the fresh state, keeping the state an admitted request returns. */
    static List<Replayed> replay(Scenario scenario) {
        List<Replayed> replayed = new ArrayList<>(scenario.steps().size());
        long[] state = null;
        long now = scenario.startMicros();
        for (Step step : scenario.steps()) {
            now += step.waitMicros();
            Transition transition = scenario.limit().algorithm().transition(state, now, scenario.limit(), step.cost());
            replayed.add(new Replayed(now, step.cost(), state, transition));
            if (transition.allowed()) {
                state = transition.state();
            }
        }
        return replayed;
    }

    /** The state after the whole scenario. */
    static long[] finalState(List<Replayed> replayed) {
        long[] state = null;
        for (Replayed r : replayed) {
            if (r.transition().allowed()) {
                state = r.transition().state();
            }
        }
        return state;
    }

    /** The time of the last request, or the start when there was none. */
    static long finalTime(Scenario scenario) {
        long now = scenario.startMicros();
        for (Step step : scenario.steps()) {
            now += step.waitMicros();
        }
        return now;
    }
}
