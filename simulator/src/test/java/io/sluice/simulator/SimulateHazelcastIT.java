package io.sluice.simulator;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code simulate --store hazelcast}: a real Hazelcast member that the command starts and stops. */
class SimulateHazelcastIT {

    private static final List<String> HAZELCAST = List.of("--store", "hazelcast");

    @Test
    void theTierOnAnEmbeddedMemberAdmitsExactlyTheIdeal() throws Exception {
        RealStoreRuns.assertAccurate(HAZELCAST);
    }

    @Test
    void anOutageFailsClosedAndTheMemberDecidesAgainWhenItEnds() throws Exception {
        RealStoreRuns.assertOutageFailsClosed(HAZELCAST);
    }

    @Test
    void anOutageFallsBackToAShareOfTheLimitPerInstance() throws Exception {
        RealStoreRuns.assertOutageFallsBack(HAZELCAST);
    }
}
