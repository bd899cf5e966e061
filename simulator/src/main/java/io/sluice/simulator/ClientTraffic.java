package io.sluice.simulator;

import io.sluice.algorithms.KeyState;
import io.sluice.api.Limit;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One simulated client: its key, its Poisson arrivals, what it offered, what the fleet
 * admitted, and what the {@linkplain Ideal exact limiter} admits of the same requests.
 */
final class ClientTraffic {

    private final int index;
    private final String key;
    private final SplittableRandom random;
    private final double meanIntervalMicros;
    private final List<Limit> exactLimits;
    private final KeyState exactState = KeyState.empty();

    private long nextArrivalMicros;
    private long offered;
    private long admitted;
    private long admittedByExactLimiter;

    /**
     * A client whose key is {@code keyPrefix} and its number, sending from {@code startMicros};
     * {@code exactLimits} are the exact limiter's limits, checked all-or-nothing.
     */
    ClientTraffic(int index, String keyPrefix, SplittableRandom random, double ratePerSecond, long startMicros,
                  List<Limit> exactLimits) {
        this.index = index;
        this.key = keyPrefix + "client-" + index;
        this.random = random;
        this.meanIntervalMicros = 1e6 / ratePerSecond;
        this.exactLimits = exactLimits;
        this.nextArrivalMicros = startMicros + nextInterval();
    }

    /** The client's number, from 0; it breaks ties between arrivals at the same microsecond. */
    int index() {
        return index;
    }

    /** The key the client's limits are kept under. */
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
        if (exactState.tryAcquire(exactLimits, nextArrivalMicros, 1).allowed()) {
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

    /** Requests the fleet admitted beyond this client's ideal; 0 when it admitted no more. */
    long overAdmitted() {
        return Math.max(0, admitted - admittedByExactLimiter);
    }

    // Exponential gaps make Poisson arrivals, rounded to whole microseconds.
    private long nextInterval() {
        return Math.round(-Math.log(1.0 - random.nextDouble()) * meanIntervalMicros);
    }
}
