package io.sluice.algorithms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.math.BigInteger;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

/**
 * The bucket algorithms enforce every limit they accept at its declared rate: a client that
 * takes every whole token as soon as it is there gets, over a run in virtual time, the burst
 * plus the rate times the time, less at most 0.1% and one token, and never more.
 */
class RateProperties {

    private static final long EPOCH_2025 = 1_735_689_600_000_000L;
    private static final int STEPS = 1_000;

    /** A limit and the waits between a greedy client's requests. */
    record Run(Limit limit, List<Long> waits) {
    }

    @Property(tries = 300)
    void aGreedyClientGetsTheDeclaredRate(@ForAll("runs") Run run) {
        Limit limit = run.limit();
        Algorithm algorithm = limit.algorithm();
        long[] state = null;
        long now = EPOCH_2025;
        long elapsed = 0;
        long admitted = 0;
        for (long wait : run.waits()) {
            now += wait;
            elapsed += wait;
            Transition probe = algorithm.transition(state, now, limit, 1);
            if (!probe.allowed()) {
                continue;
            }
            state = probe.state();
            admitted += 1;
            if (probe.remaining() > 0) {
                Transition rest = algorithm.transition(state, now, limit, probe.remaining());
                assertThat(rest.allowed()).as("the remaining tokens are there").isTrue();
                state = rest.state();
                admitted += probe.remaining();
            }
        }
        elapsed -= run.waits().get(0);
        BigInteger period = BigInteger.valueOf(limit.periodMicros());
        BigInteger refilled = BigInteger.valueOf(elapsed).multiply(BigInteger.valueOf(limit.permits()));
        BigInteger beyondBurst = BigInteger.valueOf(admitted - limit.burst());
        // never more: admitted <= B + elapsed * P / D
        assertThat(beyondBurst.multiply(period)).isLessThanOrEqualTo(refilled);
        // never less than 0.1%: (admitted - B + 1) * D >= elapsed * P * 0.999
        assertThat(beyondBurst.add(BigInteger.ONE).multiply(period).multiply(BigInteger.valueOf(1_000)))
                .as("%d admitted in %dus", admitted, elapsed)
                .isGreaterThanOrEqualTo(refilled.multiply(BigInteger.valueOf(999)));
    }

    @Provide
    Arbitrary<Run> runs() {
        Arbitrary<Long> permits = Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.of(3_000L, 5_000_000L, 10_000_000L, 999_999_937L, Limit.MAX_PERMITS)),
                Tuple.of(3, Arbitraries.longs().between(1, Limit.MAX_PERMITS)),
                Tuple.of(2, Arbitraries.longs().between(1, 100_000)));
        Arbitrary<Long> periodMicros = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.of(1_000_000L, 60_000_000L, 3_600_000_000L, 86_400_000_000L)),
                Tuple.of(2, Arbitraries.longs().between(1_000_000, 100_000_000_000L)));
        Arbitrary<Integer> burstPercent = Arbitraries.integers().between(1, 100);
        Arbitrary<Algorithm> algorithm = Arbitraries.of(Algorithms.TOKEN_BUCKET, Algorithms.GCRA);
        return Combinators.combine(algorithm, permits, periodMicros, burstPercent)
                .as(RateProperties::limitOrNull)
                .filter(limit -> limit != null)
                .flatMap(limit -> {
                    // Waits up to half the time to fill from empty: the bucket never fills, so
                    // nothing the client could have taken is capped away.
                    long halfFill = BigInteger.valueOf(limit.burst() - 1).multiply(BigInteger.valueOf(limit.periodMicros()))
                            .divide(BigInteger.valueOf(2 * limit.permits())).longValueExact();
                    return Arbitraries.longs().between(1, Math.max(1, halfFill)).list().ofSize(STEPS)
                            .map(waits -> new Run(limit, waits));
                })
                .filter(run -> run.limit().burst() >= 2 + 2 * run.limit().permits() / run.limit().periodMicros());
    }

    private static Limit limitOrNull(Algorithm algorithm, long permits, long periodMicros, int burstPercent) {
        long burst = Math.max(2, Math.min(Limit.MAX_PERMITS, permits / 100 * burstPercent));
        try {
            return Limit.of(algorithm, permits, Duration.of(periodMicros, ChronoUnit.MICROS)).withBurst(burst);
        } catch (IllegalArgumentException notEnforceable) {
            return null;
        }
    }

    @Test
    void rejectsWhatItCannotEnforceAndSaysWhy() {
        // 10^9 - 1 per 10^9 + 1 us: no common divisor, and one token per 2 us would be half the rate.
        assertThatThrownBy(() -> Limit.of(Algorithms.GCRA, 999_999_999, Duration.of(1_000_000_001, ChronoUnit.MICROS)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("999999999 per 1000000001us")
                .hasMessageContaining("more than 0.1% below the rate");
    }

    @Test
    void highRatesAreExact() {
        Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 10_000_000, Duration.ofSeconds(1));
        long[] state = Algorithms.TOKEN_BUCKET.transition(null, EPOCH_2025, limit, 10_000_000).state();
        Transition second = Algorithms.TOKEN_BUCKET.transition(state, EPOCH_2025 + 1_000_000, limit, 10_000_000);
        assertThat(second.allowed()).isTrue();
        Limit gcra = Limit.of(Algorithms.GCRA, 3_000, Duration.ofSeconds(1));
        long[] cell = Algorithms.GCRA.transition(null, EPOCH_2025, gcra, 3_000).state();
        assertThat(Algorithms.GCRA.transition(cell, EPOCH_2025 + 1_000_000, gcra, 3_000).allowed()).isTrue();
        assertThat(Algorithms.GCRA.transition(cell, EPOCH_2025 + 999_999, gcra, 3_000).allowed()).isFalse();
    }
}
