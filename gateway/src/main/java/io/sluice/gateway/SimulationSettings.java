package io.sluice.gateway;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import java.time.Duration;

/**
 * One simulation's parameters, as the {@code simulate} command's options give them.
 *
 * @param instances gateway instances behind the load balancer
 * @param store the store they keep the limit's state in
 * @param perInstance whether each instance has a store of its own instead of sharing one
 * @param balancer how requests are spread over the instances
 * @param permits the limit's permits per period
 * @param burst the capacity of the bucket algorithms (the windows always hold {@code permits})
 * @param period the limit's period
 * @param clients clients, each with a key (and so a limit) of its own
 * @param ratePerSecond requests each client offers per second, on average
 * @param duration how long the simulated traffic lasts
 * @param seed fixes the arrival times and the balancer's choices
 * @param leaseShare the largest lease as a share of the limit, with local quota leasing; 0 without
 * @param leaseLength how long a lease may be spent, as a share of the limit's period
 */
record SimulationSettings(int instances, StoreKind store, boolean perInstance, Balancer balancer,
                          long permits, long burst, Duration period, int clients, double ratePerSecond,
                          Duration duration, long seed, double leaseShare, double leaseLength) {

    /** Settings without leasing. */
    SimulationSettings(int instances, StoreKind store, boolean perInstance, Balancer balancer, long permits,
                       long burst, Duration period, int clients, double ratePerSecond, Duration duration, long seed) {
        this(instances, store, perInstance, balancer, permits, burst, period, clients, ratePerSecond, duration, seed,
                0, 0);
    }

    /**
     * The limit every instance enforces for each client under {@code algorithm}.
     *
     * @throws IllegalArgumentException naming the value the algorithm cannot enforce
     */
    Limit limit(Algorithm algorithm) {
        Limit limit = Limit.of(algorithm, permits, period);
        return hasBurst(algorithm) ? limit.withBurst(burst) : limit;
    }

    /** Whether the algorithm is a bucket, whose capacity ({@code --burst}) may differ from its permits. */
    static boolean hasBurst(Algorithm algorithm) {
        return algorithm == Algorithms.TOKEN_BUCKET || algorithm == Algorithms.GCRA;
    }

    /** The simulated traffic's length in microseconds. */
    long durationMicros() {
        return duration.getSeconds() * 1_000_000L + duration.getNano() / 1_000;
    }

    /** How many requests all clients offer together, on average. */
    double expectedRequests() {
        return clients * ratePerSecond * durationMicros() / 1e6;
    }
}
