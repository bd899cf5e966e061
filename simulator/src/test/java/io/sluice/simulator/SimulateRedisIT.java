package io.sluice.simulator;

import io.sluice.testkit.redis.RedisFixture;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code simulate --store redis} against a real {@code redis-server}. */
class SimulateRedisIT {

    @RegisterExtension
    static final RedisFixture REDIS = RedisFixture.standalone();

    private static List<String> redis() {
        return List.of("--store", "redis", "--redis", REDIS.uri());
    }

    @Test
    void theTierOnASharedRedisAdmitsExactlyTheIdeal() throws Exception {
        RealStoreRuns.assertAccurate(redis());
    }

    @Test
    void anOutageFailsClosedAndRedisDecidesAgainWhenItEnds() throws Exception {
        RealStoreRuns.assertOutageFailsClosed(redis());
    }

    @Test
    void twoRunsOnOneRedisDoNotShareState() throws Exception {
        // A second command on the same server starts from empty limits: the same figures again.
        RealStoreRuns.assertAccurate(redis());
    }

    @Test
    void anOutageFallsBackToAShareOfTheLimitPerInstance() throws Exception {
        RealStoreRuns.assertOutageFallsBack(redis());
    }
}
