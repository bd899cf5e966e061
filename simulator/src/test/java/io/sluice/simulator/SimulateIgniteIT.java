package io.sluice.simulator;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code simulate --store ignite}: a real Ignite server node that the command starts and stops. */
class SimulateIgniteIT {

    private static final List<String> IGNITE = List.of("--store", "ignite");

    @Test
    void theTierOnAnEmbeddedNodeAdmitsExactlyTheIdeal() throws Exception {
        RealStoreRuns.assertAccurate(IGNITE);
    }

    @Test
    void anOutageFailsClosedAndTheNodeDecidesAgainWhenItEnds() throws Exception {
        RealStoreRuns.assertOutageFailsClosed(IGNITE);
    }

    @Test
    void anOutageFallsBackToAShareOfTheLimitPerInstance() throws Exception {
        RealStoreRuns.assertOutageFallsBack(IGNITE);
    }
}
