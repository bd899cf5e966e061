package io.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.FailurePolicy;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SimulationTest {

    private static final int INSTANCES = 20;
    private static final long PERMITS = 100;
    private static final Duration PERIOD = Duration.ofSeconds(1);
    // Twice what 20 unshared limiters would admit, as the command's default.
    private static final double RATE = 2.0 * INSTANCES * PERMITS;

    private static SimulationSettings settings(boolean perInstance, Balancer balancer, long seed) {
        return settings(perInstance, balancer, RATE, seed);
    }

    private static SimulationSettings settings(boolean perInstance, Balancer balancer, double rate, long seed) {
        return new SimulationSettings(INSTANCES, StoreKind.LOCAL, perInstance, balancer, PERMITS, PERMITS, PERIOD,
                List.of(), 3, rate, Duration.ofSeconds(5), seed, FailurePolicy.FAIL_CLOSED, false, null);
    }

    private static SimulationResult run(SimulationSettings settings, Algorithm algorithm) {
        try (StoreBackend local = StoreKind.LOCAL.start(null)) {
            return Simulation.run(settings, local, algorithm);
        }
    }

    private static List<SimulationResult> runAll(SimulationSettings settings) {
        return Algorithms.all().stream().map(algorithm -> run(settings, algorithm))
                .collect(Collectors.toList());
    }

    @Test
    void sameSeedGivesTheSameFiguresAndAnotherSeedOtherTraffic() {
        SimulationSettings seeded = settings(false, Balancer.RANDOM, 42);
        List<SimulationResult> first = runAll(seeded);

        assertThat(runAll(seeded)).isEqualTo(first);
        assertThat(run(settings(false, Balancer.RANDOM, 43), Algorithms.TOKEN_BUCKET).offered())
                .isNotEqualTo(first.get(0).offered());
    }

    @Test
    void everyAlgorithmSeesTheSameTraffic() {
        List<SimulationResult> results = runAll(settings(false, Balancer.ROUND_ROBIN, 1));

        assertThat(results).extracting(SimulationResult::offered).containsOnly(results.get(0).offered());
        // 3 clients x 4,000 requests/s x 5 s, Poisson: well within a percent of 60,000.
        assertThat(results.get(0).offered()).isBetween(59_400L, 60_600L);
    }

    @Test
    void aSharedStoreAdmitsTheIdealWithinOnePercent() {
        // Far above the limit, and just above it, where the requests' bunching matters.
        for (double rate : new double[] {RATE, 1.2 * PERMITS}) {
            for (Balancer balancer : Balancer.values()) {
                for (Algorithm algorithm : Algorithms.all()) {
                    if (algorithm == Algorithms.SLIDING_WINDOW_COUNTER) {
                        continue;
                    }
                    SimulationResult result = run(settings(false, balancer, rate, 7), algorithm);

                    assertThat(Math.abs(result.errorPercent()))
                            .as("%s at %s/s with the %s balancer: %s", algorithm.name(), rate,
                                    balancer.optionName(), result)
                            .isLessThanOrEqualTo(1.0);
                }
            }
        }
    }

    @Test
    void theSlidingWindowCounterStaysNearTheExactSlidingWindow() {
        SimulationSettings nearTheLimit = new SimulationSettings(INSTANCES, StoreKind.LOCAL, false,
                Balancer.ROUND_ROBIN, PERMITS, PERMITS, PERIOD, List.of(), 3, 1.2 * PERMITS, Duration.ofSeconds(20),
                7, FailurePolicy.FAIL_CLOSED, false, null);

        SimulationResult result = run(nearTheLimit, Algorithms.SLIDING_WINDOW_COUNTER);

        // Its estimate takes the previous window's requests as evenly spread; Poisson requests
        // bunch, so it admits a little more than the sliding log (docs/simulate.md: about 1-2%).
        assertThat(result.errorPercent()).as("%s", result).isBetween(0.0, 5.0);
    }

    @Test
    void aStorePerInstanceAdmitsAboutInstancesTimesTheIdeal() {
        for (Algorithm algorithm : Algorithms.all()) {
            SimulationResult result = run(settings(true, Balancer.ROUND_ROBIN, 7), algorithm);

            assertThat(result.timesIdeal()).as("%s: %s", algorithm.name(), result)
                    .isBetween(0.95 * INSTANCES, 1.0 * INSTANCES);
        }
    }

    @Test
    void unevenBalancingLeavesPerInstanceLimitersUnderNTimes() {
        SimulationResult skewed = run(settings(true, Balancer.SKEWED, 7), Algorithms.GCRA);

        // The lightly loaded instances never reach their own limit, so the fleet admits less
        // than 20 times the ideal, yet far more than it.
        assertThat(skewed.timesIdeal()).as("%s", skewed).isBetween(5.0, 0.95 * INSTANCES);
    }

    @Test
    void theBlockCacheSavesStoreCallsWithoutChangingADecision() {
        SimulationSettings plain = settings(false, Balancer.RANDOM, 3);
        SimulationSettings cached = new SimulationSettings(INSTANCES, StoreKind.LOCAL, false, Balancer.RANDOM, PERMITS,
                PERMITS, PERIOD, List.of(), 3, RATE, Duration.ofSeconds(5), 3, FailurePolicy.FAIL_CLOSED, true, null);

        for (Algorithm algorithm : Algorithms.all()) {
            SimulationResult withoutCache = run(plain, algorithm);
            SimulationResult withCache = run(cached, algorithm);

            assertThat(withCache.admitted()).as("%s", withCache).isEqualTo(withoutCache.admitted());
            assertThat(withCache.overAdmitted()).isEqualTo(withoutCache.overAdmitted());
            // Far above the limit, most requests are denials an instance already knows of.
            assertThat(withCache.storeCallsPerRequest()).as("%s", withCache).isLessThan(0.5);
        }
    }

    @Test
    void everyRequestIsOneStoreCallWithoutLeasingOrBlockCache() {
        SimulationResult result = run(settings(false, Balancer.RANDOM, 3), Algorithms.FIXED_WINDOW);

        assertThat(result.storeCalls()).isEqualTo(result.offered());
    }
}
