package io.sluice.algorithms.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The leasing steps a grid member runs, and the lease's trip back to the caller. */
class GridLeaseTest {

    private static final long NOW = 1_764_000_000_000_000L;
    private static final Limit SECOND = Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1)).named("s");
    private static final Limit DAY = Limit.of(Algorithms.FIXED_WINDOW, 1_000, Duration.ofDays(1)).named("d");
    private static final List<Limit> LIMITS = List.of(SECOND, DAY);

    @Test
    void aLeaseIsKeyStatesAndItsStateIsWrittenWithItsTimeToLive() {
        GridRequest.Outcome outcome = GridOperation.leasingOnWire(GridRequest.encode(LIMITS, 25, NOW), GridOperation.LEASE).run(null, () -> NOW);

        KeyState reference = KeyState.empty();
        Lease expected = reference.lease(LIMITS, NOW, 25);
        assertThat(expected.tokens()).isEqualTo(10);
        assertThat(GridLease.decode(outcome.reply(), LIMITS)).isEqualTo(expected);
        assertThat(outcome.write()).isTrue();
        assertThat(outcome.state()).isEqualTo(reference.encode());
        assertThat(outcome.ttlMicros()).isEqualTo(reference.expiresAtMicros() - NOW);
    }

    @Test
    void aLeaseThatGetsNoTokenWritesNothing() {
        byte[] empty = GridOperation.leasingOnWire(GridRequest.encode(LIMITS, 10, NOW), GridOperation.LEASE).run(null, () -> NOW).state();

        GridRequest.Outcome outcome = GridOperation.leasingOnWire(GridRequest.encode(LIMITS, 10, NOW), GridOperation.LEASE).run(empty, () -> NOW);

        assertThat(GridLease.decode(outcome.reply(), LIMITS).tokens()).isZero();
        assertThat(GridLease.decode(outcome.reply(), LIMITS).decision().allowed()).isFalse();
        assertThat(outcome.write()).isFalse();
    }

    @Test
    void givenBackTokensAreWrittenAndNothingToGiveBackToWritesNothing() {
        byte[] leased = GridOperation.leasingOnWire(GridRequest.encode(LIMITS, 10, NOW), GridOperation.LEASE).run(null, () -> NOW).state();
        GridOperation giveBack = GridOperation.leasingOnWire(GridRequest.encode(LIMITS, 4, NOW), NOW);

        GridRequest.Outcome outcome = giveBack.run(leased, () -> NOW);

        KeyState reference = KeyState.decode(leased);
        reference.giveBack(LIMITS, NOW, NOW, 4);
        assertThat(outcome.write()).isTrue();
        assertThat(outcome.state()).isEqualTo(reference.encode());
        assertThat(outcome.reply()).isEmpty();
        assertThat(giveBack.run(null, () -> NOW).write()).isFalse();
    }

    @Test
    void aSlidingLogIsNeverLeasedAndAWrongReplyIsRefused() {
        Limit log = Limit.of(Algorithms.SLIDING_LOG, 10, Duration.ofSeconds(1)).named("log");
        GridOperation lease = GridOperation.leasingOnWire(GridRequest.encode(List.of(log), 5, NOW), GridOperation.LEASE);

        assertThatThrownBy(() -> lease.run(null, () -> NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sliding-log");
        assertThatThrownBy(() -> GridLease.decode(new long[] {3, NOW}, LIMITS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a lease's reply");
    }
}
