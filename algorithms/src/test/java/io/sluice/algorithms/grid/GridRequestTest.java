package io.sluice.algorithms.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What travels from a grid store to the key's owner, and the step the owner runs. */
class GridRequestTest {

    private static final List<Limit> LIMITS = List.of(
            Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1)).withBurst(25).named("burst"),
            Limit.of(Algorithms.FIXED_WINDOW, 1_000, Duration.ofDays(1)),
            Limit.of(Algorithms.SLIDING_LOG, 3, Duration.ofNanos(1_000)).named("tiny"));

    @Test
    void limitsCostAndTimeArriveAsTheyWereSent() {
        for (Algorithm algorithm : Algorithms.all()) {
            Limit limit = Limit.of(algorithm, 7, Duration.ofMillis(1_500));
            GridRequest request = GridRequest.decode(GridRequest.encode(List.of(limit), 3, 1_234));
            assertThat(request.limits()).containsExactly(limit);
            assertThat(request.cost()).isEqualTo(3);
            assertThat(request.usesMemberClock()).isFalse();
            assertThat(request.callerNowMicros()).isEqualTo(1_234);
        }
        GridRequest request = GridRequest.decode(GridRequest.encode(LIMITS, 1, GridRequest.MEMBER_CLOCK));
        assertThat(request.limits()).containsExactlyElementsOf(LIMITS);
        assertThat(request.usesMemberClock()).isTrue();
    }

    @Test
    void aListChangedAfterItWasSentIsSentAsItIsNow() {
        List<Limit> limits = new java.util.ArrayList<>(LIMITS);
        assertThat(GridRequest.decode(GridRequest.encode(limits, 1, 0)).limits()).isEqualTo(LIMITS);
        Limit other = Limit.of(Algorithms.GCRA, 3, Duration.ofMinutes(1)).named("other");
        limits.set(1, other);
        assertThat(GridRequest.decode(GridRequest.encode(limits, 1, 0)).limits())
                .containsExactly(LIMITS.get(0), other, LIMITS.get(2));
    }

    @Test
    void anAlgorithmThatIsNotBuiltInIsRefusedByTheCallerByName() {
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
            public Transition transition(long[] state, long nowMicros, Limit limit, long cost) {
                throw new UnsupportedOperationException("never reached");
            }
        };
        List<Limit> limits = List.of(Limit.of(unknown, 1, Duration.ofSeconds(1)).named("custom"));
        assertThatThrownBy(() -> GridRequest.encode(limits, 1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaky-bucket").hasMessageContaining("custom");
    }

    @Test
    void bytesThatAreNotARequestAreRefused() {
        byte[] bytes = GridRequest.encode(LIMITS, 1, 0);
        assertThatThrownBy(() -> GridRequest.decode(Arrays.copyOf(bytes, bytes.length - 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
        assertThatThrownBy(() -> GridRequest.decode(Arrays.copyOf(bytes, bytes.length + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trailing");
        byte[] future = bytes.clone();
        future[0] = 9;
        assertThatThrownBy(() -> GridRequest.decode(future))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("version 9");
    }

    @Test
    void theOwnersStepIsKeyStatesAndWritesOnlyWhatItAdmits() {
        KeyState reference = KeyState.empty();
        byte[] stored = null;
        long now = 1_000_000;
        for (int i = 0; i < 5; i++) {
            long at = now;
            GridRequest.Outcome outcome = GridOperation.decisionOnWire(GridRequest.encode(LIMITS, 1, now)).run(stored, () -> at);
            Decision expected = reference.tryAcquire(LIMITS, now, 1);
            assertThat(GridReply.decode(outcome.reply(), LIMITS)).isEqualTo(expected);
            assertThat(outcome.write()).isEqualTo(expected.allowed());
            if (outcome.write()) {
                stored = outcome.state();
                assertThat(stored).isEqualTo(reference.encode());
                assertThat(outcome.ttlMicros()).isEqualTo(reference.expiresAtMicros() - now);
            }
        }
        assertThat(GridReply.decode(GridOperation.decisionOnWire(GridRequest.encode(LIMITS, 1, now)).run(stored, () -> 0).reply(),
                LIMITS).reason()).isEqualTo(Decision.Reason.LIMIT_EXCEEDED);
    }
}
