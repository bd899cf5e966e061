package io.sluice.simulator;

import io.sluice.api.Decision;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What one algorithm admitted of the simulated traffic, summed over all clients.
 *
 * @param algorithm the algorithm's name
 * @param offered requests the clients sent
 * @param admitted requests the gateway instances admitted
 * @param ideal requests one exact limiter would admit of the same traffic ({@link Ideal})
 * @param overAdmitted requests admitted beyond each client's ideal, summed over the clients
 * @param storeCalls decisions the instances asked their stores for
 * @param unavailableOutsideOutage decisions outside the outage that the store did not make
 *     ({@code STORE_UNAVAILABLE} or {@code FALLBACK}): a failure, a timeout, or a circuit breaker
 *     that stays open for a while after the outage
 * @param outage what happened during the outage, when there was one
 */
record SimulationResult(String algorithm, long offered, long admitted, long ideal, long overAdmitted,
                        long storeCalls, long unavailableOutsideOutage, @Nullable OutageFigures outage) {

    /** How far {@code admitted} is from {@code ideal}, in percent of the ideal (NaN when the ideal is 0). */
    double errorPercent() {
        return ideal == 0 ? Double.NaN : 100.0 * (admitted - ideal) / ideal;
    }

    /** {@code admitted} as a multiple of {@code ideal} (NaN when the ideal is 0). */
    double timesIdeal() {
        return ideal == 0 ? Double.NaN : (double) admitted / ideal;
    }

    /** Store calls per offered request (NaN when nothing was offered). */
    double storeCallsPerRequest() {
        return offered == 0 ? Double.NaN : (double) storeCalls / offered;
    }

    /**
     * The decisions on requests that arrived during the outage.
     *
     * @param offered requests that arrived during the outage
     * @param admitted admitted requests by the decisions' reason
     * @param denied denied requests by the decisions' reason
     * @param storeBackAfterMicros virtual time from the end of the outage to the store's first
     *     decision after it; {@link OutageStore#NOT_BACK} when the store decided nothing after it
     */
    record OutageFigures(long offered, Map<Decision.Reason, Long> admitted, Map<Decision.Reason, Long> denied,
                         long storeBackAfterMicros) {

        OutageFigures {
            admitted = inReasonOrder(admitted);
            denied = inReasonOrder(denied);
        }

        private static Map<Decision.Reason, Long> inReasonOrder(Map<Decision.Reason, Long> counts) {
            Map<Decision.Reason, Long> ordered = new EnumMap<>(Decision.Reason.class);
            ordered.putAll(counts);
            return Collections.unmodifiableMap(ordered);
        }

        /** Admitted requests, whatever the reason. */
        long admittedTotal() {
            return admitted.values().stream().mapToLong(Long::longValue).sum();
        }

        /** Denied requests, whatever the reason. */
        long deniedTotal() {
            return denied.values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
