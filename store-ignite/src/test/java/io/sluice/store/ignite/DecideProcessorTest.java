package io.sluice.store.ignite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What travels between the caller and the primary node: the limits there, the decision back. */
class DecideProcessorTest {

    private static final List<Limit> LIMITS = List.of(
            Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1)).withBurst(25).named("burst"),
            Limit.of(Algorithms.FIXED_WINDOW, 1_000, Duration.ofDays(1)),
            Limit.of(Algorithms.SLIDING_LOG, 3, Duration.ofNanos(1_000)).named("tiny"));

    @Test
    void limitsArriveAsTheyWereSent() {
        for (Algorithm algorithm : Algorithms.all()) {
            Limit limit = Limit.of(algorithm, 7, Duration.ofMillis(1_500));
            assertThat(LimitSpecs.of(List.of(limit)).toLimits()).containsExactly(limit);
        }
        assertThat(LimitSpecs.of(LIMITS).toLimits()).containsExactlyElementsOf(LIMITS);
    }

    @Test
    void decisionsArriveAsTheyWereMade() {
        List<Decision> decisions = List.of(
                Decision.allowed(LIMITS.get(1), 999, 86_400_000_000L),
                Decision.limitExceeded(LIMITS.get(0), 0, 2_500_000, 100_000),
                Decision.costExceedsCapacity(LIMITS.get(2), 3, 0));
        for (Decision decision : decisions) {
            assertThat(DecideProcessor.decode(DecideProcessor.encode(decision, LIMITS), LIMITS))
                    .isEqualTo(decision);
        }
    }

    @Test
    void aDecisionBindsToTheCallersLimitOfTheSameName() {
        Decision decision = Decision.allowed(LimitSpecs.of(LIMITS).toLimits().get(2), 1, 1);
        assertThat(DecideProcessor.decode(DecideProcessor.encode(decision, LIMITS), LIMITS).binding())
                .isSameAs(LIMITS.get(2));
    }

    @Test
    void anAlgorithmTheNodeDoesNotKnowIsRefusedByName() {
        Algorithm unknown = new Algorithm() {
            @Override
            public String name() {
                return "leaky-bucket";
            }

            @Override
            public int id() {
                return 256;
            }

            @Override
            public void checkLimit(long permits, long burst, long periodMicros) {
            }

            @Override
            public io.sluice.api.Transition transition(long[] state, long nowMicros, Limit limit, long cost) {
                throw new UnsupportedOperationException();
            }
        };
        LimitSpecs specs = LimitSpecs.of(List.of(Limit.of(unknown, 1, Duration.ofSeconds(1))));
        assertThatThrownBy(specs::toLimits).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaky-bucket");
    }
}
