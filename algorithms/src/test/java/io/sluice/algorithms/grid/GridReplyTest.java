package io.sluice.algorithms.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What travels back from the key's owner: the decision, bound to the caller's limits. */
class GridReplyTest {

    private static final Limit SECOND = Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1)).named("s");
    private static final Limit DAY = Limit.of(Algorithms.FIXED_WINDOW, 1_000, Duration.ofDays(1)).named("d");
    private static final List<Limit> LIMITS = List.of(SECOND, DAY);

    @Test
    void everyReasonAMemberGivesComesBackEqual() {
        List<Decision> decisions = List.of(
                Decision.allowed(DAY, 999, 86_399_999_999L),
                Decision.limitExceeded(SECOND, 0, 1_000_000, 100_000),
                Decision.costExceedsCapacity(DAY, 1_000, 0));
        for (Decision decision : decisions) {
            assertThat(GridReply.decode(GridReply.encode(decision, LIMITS), LIMITS)).isEqualTo(decision);
        }
    }

    @Test
    void theBindingIsTheCallersLimitOfTheSameName() {
        Limit rebuiltOnAMember = Limit.of(Algorithms.FIXED_WINDOW, 1_000, Duration.ofDays(1)).named("d");
        long[] reply = GridReply.encode(Decision.allowed(rebuiltOnAMember, 3, 5), LIMITS);
        assertThat(GridReply.decode(reply, LIMITS).binding()).isSameAs(DAY);
    }

    @Test
    void aReplyNoMemberGivesIsRefusedWithTheSameException() {
        long[] unavailable = {Decision.Reason.STORE_UNAVAILABLE.ordinal(), 0, 0, 0, -1};
        assertThatThrownBy(() -> GridReply.decode(unavailable, LIMITS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("STORE_UNAVAILABLE");
        assertThatThrownBy(() -> GridReply.decode(new long[] {0, 2, 0, 0, -1}, LIMITS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 limits");
        assertThatThrownBy(() -> GridReply.decode(new long[] {0, 0}, LIMITS))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GridReply.encode(Decision.allowed(
                Limit.of(Algorithms.GCRA, 1, Duration.ofSeconds(1)).named("other"), 0, 0), LIMITS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("other");
    }
}
