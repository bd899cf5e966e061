package io.sluice.algorithms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AlgorithmsTest {

    private static final long SECOND = 1_000_000;
    private static final long T0 = 1_764_000_000L * SECOND;

    @Test
    void namesAndLookup() {
        assertThat(Algorithms.all()).extracting(Algorithm::name).containsExactly(
                "fixed-window", "sliding-log", "sliding-window-counter", "token-bucket", "gcra");
        for (Algorithm algorithm : Algorithms.all()) {
            assertThat(Algorithms.byName(algorithm.name())).isSameAs(algorithm);
        }
        assertThatThrownBy(() -> Algorithms.byName("leaky-bucket"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'leaky-bucket'");
    }

    @Test
    void windowsRejectABurstOtherThanPermits() {
        for (Algorithm window : new Algorithm[] {Algorithms.FIXED_WINDOW, Algorithms.SLIDING_LOG,
                Algorithms.SLIDING_WINDOW_COUNTER}) {
            Limit limit = Limit.of(window, 10, Duration.ofSeconds(1));
            assertThat(limit.withBurst(10).burst()).isEqualTo(10);
            assertThatThrownBy(() -> limit.withBurst(20))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("20");
        }
    }

    @Test
    void slidingLogRejectsALimitWhoseLogWouldBeUnbounded() {
        assertThat(Limit.of(Algorithms.SLIDING_LOG, 10_000, Duration.ofHours(1)).permits()).isEqualTo(10_000);
        assertThatThrownBy(() -> Limit.of(Algorithms.SLIDING_LOG, 10_001, Duration.ofHours(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("10001");
    }

    @Test
    void bucketsRejectATooLargeBucket() {
        for (Algorithm bucket : new Algorithm[] {Algorithms.TOKEN_BUCKET, Algorithms.GCRA}) {
            // 1 permit per 366 days: 3.16e13 units per token, so a burst of 72 is over 2^51 (2.25e15).
            Limit yearly = Limit.of(bucket, 1, Duration.ofDays(366));
            assertThat(yearly.withBurst(71).burst()).isEqualTo(71);
            assertThatThrownBy(() -> yearly.withBurst(72))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("burst 72");
            assertThat(Limit.of(bucket, Limit.MAX_PERMITS, Duration.ofSeconds(1))
                    .withBurst(Limit.MAX_PERMITS).burst()).isEqualTo(Limit.MAX_PERMITS);
        }
    }

    @Test
    void costBelowOneIsRejected() {
        for (Algorithm algorithm : Algorithms.all()) {
            Limit limit = Limit.of(algorithm, 10, Duration.ofSeconds(1));
            assertThatThrownBy(() -> algorithm.transition(null, T0, limit, 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
        }
    }

    @Test
    void aTransitionIsOneOfThreeKindsWhicheverFactoryBuildsIt() {
        long[] state = {1};
        Transition allowed = Transition.of(true, false, 4, 10, 99, state);
        assertThat(allowed.allowed()).isTrue();
        assertThat(allowed.retryAfterMicros()).as("no wait when allowed").isZero();
        assertThat(allowed.state()).isSameAs(state);
        Transition tooBig = Transition.of(false, true, 4, 10, 99, null);
        assertThat(tooBig.costExceedsCapacity()).isTrue();
        assertThat(tooBig.retryAfterMicros()).as("no wait when it never fits").isZero();
        assertThat(Transition.of(false, false, 0, 10, 7, state).retryAfterMicros()).isEqualTo(7);
        assertThat(Transition.denied(0, 10, 7, state).toString())
                .isEqualTo(Transition.of(false, false, 0, 10, 7, state).toString());

        assertThatThrownBy(() -> Transition.of(true, true, 0, 0, 0, state))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot be allowed");
        assertThatThrownBy(() -> Transition.of(true, false, 0, 0, 0, null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("state");
    }

    @Test
    void everyAlgorithmAdmitsItsCapacityThenDeniesWithoutCharging() {
        for (Algorithm algorithm : Algorithms.all()) {
            Limit limit = Limit.of(algorithm, 5, Duration.ofSeconds(1));
            long[] state = null;
            for (int i = 0; i < 5; i++) {
                Transition admitted = algorithm.transition(state, T0, limit, 1);
                assertThat(admitted.allowed()).as(algorithm.name()).isTrue();
                assertThat(admitted.remaining()).isEqualTo(4 - i);
                state = admitted.state();
            }
            Transition denied = algorithm.transition(state, T0, limit, 1);
            assertThat(denied.allowed()).as(algorithm.name()).isFalse();
            assertThat(denied.state()).isSameAs(state);
            assertThat(denied.remaining()).isZero();
            assertThat(denied.retryAfterMicros()).isPositive();
            Transition tooBig = algorithm.transition(state, T0, limit, 6);
            assertThat(tooBig.costExceedsCapacity()).isTrue();
        }
    }

    @Test
    void tokenBucketRefillsOneTokenPerInterval() {
        Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1)).withBurst(10);
        long[] state = null;
        for (int i = 0; i < 10; i++) {
            state = Algorithms.TOKEN_BUCKET.transition(state, T0, limit, 1).state();
        }
        Transition denied = Algorithms.TOKEN_BUCKET.transition(state, T0 + 4_000, limit, 1);
        assertThat(denied.retryAfterMicros()).isEqualTo(6_000);
        assertThat(denied.resetAfterMicros()).isEqualTo(96_000);
        assertThat(Algorithms.TOKEN_BUCKET.transition(state, T0 + 10_000, limit, 1).allowed()).isTrue();
    }

    @Test
    void fixedWindowResetsAtTheAlignedBoundary() {
        Limit limit = Limit.of(Algorithms.FIXED_WINDOW, 2, Duration.ofSeconds(1));
        long t = T0 + 300_000;
        long[] state = Algorithms.FIXED_WINDOW.transition(null, t, limit, 2).state();
        Transition denied = Algorithms.FIXED_WINDOW.transition(state, t, limit, 1);
        assertThat(denied.retryAfterMicros()).isEqualTo(700_000);
        assertThat(Algorithms.FIXED_WINDOW.transition(state, T0 + SECOND, limit, 2).allowed()).isTrue();
    }
}
