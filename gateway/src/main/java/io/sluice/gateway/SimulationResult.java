package io.sluice.gateway;

/**
 * What one algorithm admitted of the simulated traffic, summed over all clients.
 *
 * @param algorithm the algorithm's name
 * @param offered requests the clients sent
 * @param admitted requests the gateway instances admitted
 * @param ideal requests one exact limiter would admit of the same traffic ({@link Ideal})
 * @param storeCalls decisions the instances asked their stores for
 */
record SimulationResult(String algorithm, long offered, long admitted, long ideal, long storeCalls) {

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
