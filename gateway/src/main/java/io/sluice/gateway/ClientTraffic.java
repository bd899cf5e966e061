package io.sluice.gateway;

import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * One simulated client: its key, its Poisson arrivals, what it offered, what the fleet
 * admitted, and what the {@linkplain Ideal exact limiter} admits of the same requests.
 */
final class ClientTraffic {

    private final int index;
    private final String key;
    private final SplittableRandom random;
    private final double meanIntervalMicros;
    private final Limit exactLimiter;

    private long nextArrivalMicros;
    private long offered;
    private long admitted;
    private long @Nullable [] exactState;
    private long admittedByExactLimiter;

    ClientTraffic(int index, SplittableRandom random, double ratePerSecond, long startMicros, Limit exactLimiter) {
        this.index = index;
        this.key = "client-" + index;
        this.random = random;
        this.meanIntervalMicros = 1e6 / ratePerSecond;
        this.exactLimiter = exactLimiter;
        this.nextArrivalMicros = startMicros + nextInterval();
    }

    /** The client's number, from 0; it breaks ties between arrivals at the same microsecond. */
    int index() {
        return index;
    }

    /** The key the client's limit is kept under. */
    String key() {
        return key;
    }

    /** When the client's next request arrives, in microseconds since the epoch. */
    long nextArrivalMicros() {
        return nextArrivalMicros;
    }

    /** Records the fleet's decision on the request arriving now, has the exact limiter decide it, and draws the next arrival. */
    void record(boolean allowed) {
        offered++;
        if (allowed) {
            admitted++;
        }
        Transition exact = exactLimiter.algorithm().transition(exactState, nextArrivalMicros, exactLimiter, 1);
        if (exact.allowed()) {
            exactState = exact.state();
            admittedByExactLimiter++;
        }
        nextArrivalMicros += nextInterval();
    }

    /** Requests sent. */
    long offered() {
        return offered;
    }

    /** Requests the fleet admitted. */
    long admitted() {
        return admitted;
    }

    /** Requests the exact limiter admitted: this client's ideal. */
    long ideal() {
        return admittedByExactLimiter;
    }

    // Exponential gaps make Poisson arrivals, rounded to whole microseconds.
    private long nextInterval() {
        return Math.round(-Math.log(1.0 - random.nextDouble()) * meanIntervalMicros);
    }
}
