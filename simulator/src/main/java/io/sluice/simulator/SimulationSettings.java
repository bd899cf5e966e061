package io.sluice.simulator;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.FailurePolicy;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One simulation's parameters, as the {@code simulate} command's options give them.
 *
 * @param instances gateway instances behind the load balancer
 * @param store the store they keep the limits' state in
 * @param perInstance whether each instance has a store of its own instead of sharing one
 * @param balancer how requests are spread over the instances
 * @param permits the limit's permits per period
 * @param burst the capacity of the bucket algorithms (the windows always hold {@code permits})
 * @param period the limit's period
 * @param alsoLimits further limits every request is checked against, whatever the algorithm of the run
 * @param clients clients, each with a key (and so limits) of its own
 * @param ratePerSecond requests each client offers per second, on average
 * @param duration how long the simulated traffic lasts
 * @param seed fixes the arrival times and the balancer's choices
 * @param failurePolicy what the instances answer when the store cannot decide
 * @param blockCache whether each instance answers a denial that still holds from its block cache
 * @param outage when the store fails every call, if ever
 */
record SimulationSettings(int instances, StoreKind store, boolean perInstance, Balancer balancer,
                          long permits, long burst, Duration period, List<Limit> alsoLimits, int clients,
                          double ratePerSecond, Duration duration, long seed, FailurePolicy failurePolicy,
                          boolean blockCache, @Nullable Outage outage) {

    SimulationSettings {
        alsoLimits = List.copyOf(alsoLimits);
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

    /**
     * Every limit a request is checked against under {@code algorithm}: its {@link #limit}, then
     * {@link #alsoLimits}.
     *
     * @throws IllegalArgumentException naming the value the algorithm cannot enforce, or a
     *     further limit that is the same as the run's own
     */
    List<Limit> limits(Algorithm algorithm) {
        List<Limit> limits = new ArrayList<>();
        limits.add(limit(algorithm));
        for (Limit also : alsoLimits) {
            for (Limit earlier : limits) {
                if (earlier.name().equals(also.name())) {
                    throw new IllegalArgumentException("the limit " + also.name() + " is given twice");
                }
            }
            limits.add(also);
        }
        return limits;
    }

    /** Whether the algorithm is a bucket, whose capacity ({@code --burst}) may differ from its permits. */
    static boolean hasBurst(Algorithm algorithm) {
        return algorithm == Algorithms.TOKEN_BUCKET || algorithm == Algorithms.GCRA;
    }

    /** The simulated traffic's length in microseconds. */
    long durationMicros() {
        return duration.getSeconds() * 1_000_000L + duration.getNano() / 1_000;
    }

    /** How many instances share each store: all of them, or one with a store per instance. */
    int instancesPerStore() {
        return perInstance ? 1 : instances;
    }

    /** How many requests all clients offer together, on average. */
    double expectedRequests() {
        return clients * ratePerSecond * durationMicros() / 1e6;
    }
}
