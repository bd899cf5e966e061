package io.sluice.algorithms;

import static io.sluice.algorithms.Scenarios.replay;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Scenarios.Replayed;
import io.sluice.algorithms.Scenarios.Scenario;
import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The worst cases docs/algorithms.md states, over long runs of requests on a monotonic clock. */
class BoundProperties {

    private record Admitted(long atMicros, long cost) {
    }

    private static List<Admitted> admitted(Scenario scenario) {
        List<Admitted> admitted = new ArrayList<>();
        for (Replayed r : replay(scenario)) {
            if (r.transition().allowed()) {
                admitted.add(new Admitted(r.atMicros(), r.cost()));
            }
        }
        return admitted;
    }

    private static Arbitrary<Scenario> runs(Algorithm algorithm) {
        return Scenarios.scenarios(Scenarios.smallLimits(algorithm), 300, false);
    }

    @Provide
    Arbitrary<Scenario> fixedWindowRuns() {
        return runs(Algorithms.FIXED_WINDOW);
    }

    @Provide
    Arbitrary<Scenario> slidingLogRuns() {
        return runs(Algorithms.SLIDING_LOG);
    }

    @Provide
    Arbitrary<Scenario> slidingWindowCounterRuns() {
        return runs(Algorithms.SLIDING_WINDOW_COUNTER);
    }

    @Provide
    Arbitrary<Scenario> bucketRuns() {
        return Arbitraries.of(Algorithms.TOKEN_BUCKET, Algorithms.GCRA).flatMap(BoundProperties::runs);
    }

    @Property(tries = 150)
    void fixedWindowAdmitsAtMostPermitsPerAlignedWindow(@ForAll("fixedWindowRuns") Scenario scenario) {
        Limit limit = scenario.limit();
        Map<Long, Long> perWindow = new HashMap<>();
        for (Admitted a : admitted(scenario)) {
            perWindow.merge(a.atMicros() - a.atMicros() % limit.periodMicros(), a.cost(), Long::sum);
        }
        assertThat(perWindow.values()).allSatisfy(count -> assertThat(count).isLessThanOrEqualTo(limit.permits()));
    }

    @Property(tries = 150)
    void slidingLogAdmitsAtMostPermitsInAnyPeriod(@ForAll("slidingLogRuns") Scenario scenario) {
        Limit limit = scenario.limit();
        List<Admitted> admitted = admitted(scenario);
        for (int i = 0; i < admitted.size(); i++) {
            long windowEnd = admitted.get(i).atMicros() + limit.periodMicros();
            long count = 0;
            for (int j = i; j < admitted.size() && admitted.get(j).atMicros() < windowEnd; j++) {
                count += admitted.get(j).cost();
            }
            assertThat(count).as("admitted in [%d, %d)", admitted.get(i).atMicros(), windowEnd)
                    .isLessThanOrEqualTo(limit.permits());
        }
    }

    @Property(tries = 150)
    void bucketsAdmitAtMostTheBurstPlusTheRate(@ForAll("bucketRuns") Scenario scenario) {
        Limit limit = scenario.limit();
        List<Admitted> admitted = admitted(scenario);
        for (int i = 0; i < admitted.size(); i++) {
            long count = 0;
            for (int j = i; j < admitted.size(); j++) {
                count += admitted.get(j).cost();
                long span = admitted.get(j).atMicros() - admitted.get(i).atMicros();
                // count <= B + span * P / D, in exact integers
                assertThat(BigInteger.valueOf(count - limit.burst()).multiply(BigInteger.valueOf(limit.periodMicros())))
                        .as("admitted within %dus", span)
                        .isLessThanOrEqualTo(BigInteger.valueOf(span).multiply(BigInteger.valueOf(limit.permits())));
            }
        }
    }

    /**
     * At most P per aligned window; a period starting {@code f} into an aligned window
     * holding {@code n} admits at most {@code P + 1 + n * (f + step) / D} (the previous
     * window's weight decays linearly, quantised into steps).
     */
    @Property(tries = 150)
    void slidingWindowCounterStaysWithinItsBound(@ForAll("slidingWindowCounterRuns") Scenario scenario) {
        Limit limit = scenario.limit();
        long period = limit.periodMicros();
        long step = Math.max(1, period / SlidingWindowCounter.STEPS);
        Map<Long, Long> perWindow = new HashMap<>();
        List<Admitted> admitted = admitted(scenario);
        for (Admitted a : admitted) {
            perWindow.merge(a.atMicros() - a.atMicros() % period, a.cost(), Long::sum);
        }
        assertThat(perWindow.values()).allSatisfy(count -> assertThat(count).isLessThanOrEqualTo(limit.permits()));
        for (int i = 0; i < admitted.size(); i++) {
            long start = admitted.get(i).atMicros();
            long offset = start % period;
            long previous = perWindow.getOrDefault(start - offset, 0L);
            long count = 0;
            for (int j = i; j < admitted.size() && admitted.get(j).atMicros() < start + period; j++) {
                count += admitted.get(j).cost();
            }
            assertThat(count * period).as("admitted in the period from %d", start)
                    .isLessThanOrEqualTo((limit.permits() + 1) * period + previous * (offset + step));
        }
    }
}
