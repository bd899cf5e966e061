package io.sluice.gateway;

/**
 * What one algorithm admitted of the simulated traffic, summed over all clients.
 *
 * @param algorithm the algorithm's name
 * @param offered requests the clients sent
 * @param admitted requests the gateway instances admitted
 * @param ideal requests one exact limiter would admit of the same traffic ({@link Ideal})
 * @param storeCalls calls the instances made to their stores (decisions, leases, give-backs)
 * @param overAdmitted over the clients, the requests admitted beyond each one's ideal
 * @param underAdmitted over the clients, the requests short of each one's ideal
 */
record SimulationResult(String algorithm, long offered, long admitted, long ideal, long storeCalls,
                        long overAdmitted, long underAdmitted) {

    /** A result whose clients' over- and under-admission are not told apart. */
    SimulationResult(String algorithm, long offered, long admitted, long ideal, long storeCalls) {
        this(algorithm, offered, admitted, ideal, storeCalls, Math.max(0, admitted - ideal),
                Math.max(0, ideal - admitted));
    }

    /** {@code overAdmitted} in percent of the ideal (NaN when the ideal is 0). */
    double overPercent() {
        return ideal == 0 ? Double.NaN : 100.0 * overAdmitted / ideal;
    }

    /** {@code underAdmitted} in percent of the ideal (NaN when the ideal is 0). */
    double underPercent() {
        return ideal == 0 ? Double.NaN : 100.0 * underAdmitted / ideal;
    }

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
}
