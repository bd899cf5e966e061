package io.sluice.store.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DecisionCodecTest {

    private static final Limit SECOND = Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1)).named("s");
    private static final Limit DAY = Limit.of(Algorithms.FIXED_WINDOW, 1_000, Duration.ofDays(1)).named("d");
    private static final List<Limit> LIMITS = List.of(SECOND, DAY);

    @Test
    void everyReasonAnEntryProcessorGivesComesBackEqual() {
        List<Decision> decisions = List.of(
                Decision.allowed(DAY, 999, 86_399_999_999L),
                Decision.limitExceeded(SECOND, 0, 1_000_000, 100_000),
                Decision.costExceedsCapacity(DAY, 1_000, 0));
        for (Decision decision : decisions) {
            assertThat(DecisionCodec.decode(DecisionCodec.encode(decision, LIMITS), LIMITS)).isEqualTo(decision);
        }
    }

    @Test
    void theBindingIsTheCallersOwnLimitObject() {
        Limit rebuiltOnAMember = Limit.of(Algorithms.FIXED_WINDOW, 1_000, Duration.ofDays(1)).named("d");
        long[] encoded = DecisionCodec.encode(Decision.allowed(rebuiltOnAMember, 3, 5), LIMITS);
        assertThat(DecisionCodec.decode(encoded, LIMITS).binding()).isSameAs(DAY);
    }
}
