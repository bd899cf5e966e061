package io.sluice.testkit;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

/**
 * Generates the {@link Scenario}s of the model-based properties: any of the five algorithms,
 * with permits, periods and bursts across the validated ranges (small values most often, as
 * they reach denials and resets within a few steps), costs that fit, fill or overflow the
 * capacities, and clock steps from none to two periods.
 */
final class Scenarios {

    /** The longest request sequence of one try: long enough to fill, deny and refill a limit. */
    private static final int MAX_STEPS = 40;

    /** The largest generated permits; larger ones behave alike and only cost time. */
    private static final long MAX_GENERATED_PERMITS = 1_000;

    /** The largest generated bucket burst. */
    private static final long MAX_GENERATED_BURST = 3_000;

    /** The bucket algorithms' bound: {@code burst * ceil(period / permits)} at most 2^50 us. */
    private static final long BUCKET_BOUND_MICROS = 1L << 50;

    private static final long MAX_PERIOD_MICROS = Limit.MAX_PERIOD.toNanos() / 1_000;

    private Scenarios() {
    }

    /** Scenarios with between {@code minLimits} and {@code maxLimits} limits. */
    static Arbitrary<Scenario> withLimits(int minLimits, int maxLimits) {
        return limitParameters().list().ofMinSize(minLimits).ofMaxSize(maxLimits)
                .map(Scenarios::named)
                .flatMap(Scenarios::requestsAgainst);
    }

    private static Arbitrary<Scenario> requestsAgainst(List<Limit> limits) {
        long shortestPeriod = limits.stream().mapToLong(Limit::periodMicros).min().orElseThrow();
        long longestPeriod = limits.stream().mapToLong(Limit::periodMicros).max().orElseThrow();
        long largestCapacity = limits.stream().mapToLong(Limit::burst).max().orElseThrow();
        Arbitrary<Long> advance = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(0L)),
                Tuple.of(4, Arbitraries.longs().between(1, shortestPeriod)),
                Tuple.of(2, Arbitraries.longs().between(1, 2 * longestPeriod)));
        Arbitrary<Long> cost = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.just(1L)),
                Tuple.of(3, Arbitraries.longs().between(1, largestCapacity)),
                Tuple.of(1, Arbitraries.just(largestCapacity + 1)));
        return Arbitraries.integers().between(1, 3).flatMap(keys -> {
            Arbitrary<Scenario.Step> step = Combinators.combine(advance,
                    Arbitraries.integers().between(0, keys - 1), cost).as(Scenario.Step::new);
            // Sizes drawn uniformly: jqwik's default bias and edge cases make most lists short.
            Arbitrary<List<Scenario.Step>> steps = Arbitraries.integers().between(1, MAX_STEPS)
                    .withDistribution(RandomDistribution.uniform()).withoutEdgeCases()
                    .flatMap(size -> step.list().ofSize(size));
            return Combinators.combine(Arbitraries.longs().between(0, longestPeriod), steps)
                    .as((offset, requests) -> new Scenario(limits, keys, offset, requests));
        });
    }

    /** A limit not yet named: names are given by position, so a scenario's are distinct. */
    private static Arbitrary<Limit> limitParameters() {
        Arbitrary<Long> permits = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.longs().between(1, 10)),
                Tuple.of(3, Arbitraries.longs().between(11, 100)),
                Tuple.of(1, Arbitraries.longs().between(101, MAX_GENERATED_PERMITS)));
        Arbitrary<Long> periodMicros = Arbitraries.frequencyOf(
                // below a millisecond, often below the permits: the rounding of ceil(D / P)
                Tuple.of(1, Arbitraries.longs().between(1, 999)),
                Tuple.of(5, Arbitraries.longs().between(1_000, 10_000_000)),
                // long periods, up to the longest allowed, where the counter quantises its weight
                Tuple.of(1, Arbitraries.longs().between(10_000_001, MAX_PERIOD_MICROS)));
        return Combinators.combine(Arbitraries.of(Algorithms.all()).withoutEdgeCases(), permits, periodMicros)
                .flatAs(Scenarios::withBurst);
    }

    private static Arbitrary<Limit> withBurst(Algorithm algorithm, long permits, long periodMicros) {
        Limit limit = Limit.of(algorithm, permits, Duration.of(periodMicros, ChronoUnit.MICROS));
        if (!hasBurst(algorithm)) {
            return Arbitraries.just(limit);
        }
        long tokenMicros = (periodMicros + permits - 1) / permits;
        long maxBurst = Math.min(MAX_GENERATED_BURST, BUCKET_BOUND_MICROS / tokenMicros);
        return Arbitraries.frequencyOf(
                        Tuple.of(2, Arbitraries.just(Math.min(permits, maxBurst))),
                        Tuple.of(3, Arbitraries.longs().between(1, maxBurst)))
                .map(limit::withBurst);
    }

    private static boolean hasBurst(Algorithm algorithm) {
        return algorithm.name().equals(Algorithms.TOKEN_BUCKET.name())
                || algorithm.name().equals(Algorithms.GCRA.name());
    }

    private static List<Limit> named(List<Limit> limits) {
        List<Limit> named = new ArrayList<>(limits.size());
        for (int i = 0; i < limits.size(); i++) {
            named.add(limits.get(i).named("limit-" + i));
        }
        return List.copyOf(named);
    }
}
