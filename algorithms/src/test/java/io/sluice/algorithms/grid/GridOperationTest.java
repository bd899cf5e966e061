package io.sluice.algorithms.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The operations a grid store sends: checked on the caller, and run on the member as sent. */
class GridOperationTest {

    private static final long NOW = 1_764_000_000_000_000L;
    private static final Limit SECOND = Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1)).named("s");
    private static final Limit LOG = Limit.of(Algorithms.SLIDING_LOG, 10, Duration.ofSeconds(1)).named("log");
    private static final List<Limit> LIMITS = List.of(SECOND);

    @Test
    void badLeaseArgumentsAreRefusedOnTheCaller() {
        assertThatThrownBy(() -> GridOperation.lease(LIMITS, 0, NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
        assertThatThrownBy(() -> GridOperation.lease(List.of(LOG), 5, NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sliding-log");
        Lease lease = KeyState.empty().lease(LIMITS, NOW, 5);
        assertThatThrownBy(() -> GridOperation.giveBack(LIMITS, lease, lease.tokens() + 1, NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf(lease.tokens() + 1));
        assertThat(GridOperation.giveBack(LIMITS, lease, 0, NOW)).isNull();
    }

    @Test
    void eachOperationRunsOnTheMemberAsItsOwnStepDoes() {
        GridOperation decide = GridOperation.decisionOnWire(GridOperation.decide(LIMITS, 3, NOW).request());
        GridRequest.Outcome decided = decide.run(null, () -> NOW);
        KeyState reference = KeyState.empty();
        assertThat(GridReply.decode(decided.reply(), LIMITS)).isEqualTo(reference.tryAcquire(LIMITS, NOW, 3));
        assertThat(decided.state()).isEqualTo(reference.encode());

        GridOperation sentLease = GridOperation.lease(LIMITS, 5, NOW);
        GridOperation lease = GridOperation.leasingOnWire(sentLease.request(), sentLease.leaseTime());
        GridRequest.Outcome leased = lease.run(decided.state(), () -> NOW);
        Lease taken = reference.lease(LIMITS, NOW, 5);
        assertThat(GridLease.decode(leased.reply(), LIMITS)).isEqualTo(taken);
        assertThat(leased.state()).isEqualTo(reference.encode());

        GridOperation sentBack = GridOperation.giveBack(LIMITS, taken, 2, NOW);
        assertThat(sentBack).isNotNull();
        GridOperation giveBack = GridOperation.leasingOnWire(sentBack.request(), sentBack.leaseTime());
        GridRequest.Outcome givenBack = giveBack.run(leased.state(), () -> NOW);
        reference.giveBack(LIMITS, NOW, taken.takenAtMicros(), 2);
        assertThat(givenBack.reply()).isEmpty();
        assertThat(givenBack.state()).isEqualTo(reference.encode());
    }

    @Test
    void eachOperationRunInPlaceAnswersAndLeavesWhatItsRunOnTheBytesDoes() {
        KeyState held = KeyState.empty();
        byte[] stored = null;
        Lease taken = KeyState.empty().lease(LIMITS, NOW + 1, 5);
        GridOperation giveBack = GridOperation.giveBack(LIMITS, taken, 2, NOW + 2);
        assertThat(giveBack).isNotNull();
        List<GridOperation> operations = List.of(GridOperation.decide(LIMITS, 3, NOW), GridOperation.lease(LIMITS, 5, NOW + 1),
                giveBack, GridOperation.decide(LIMITS, 20, NOW + 3),
                GridOperation.batch(List.of(GridOperation.decide(LIMITS, 1, NOW + 4), GridOperation.decide(LIMITS, 9, NOW + 4))));
        for (GridOperation operation : operations) {
            GridRequest.Outcome inPlace = operation.runInPlace(held, () -> NOW);
            GridRequest.Outcome onBytes = operation.run(stored, () -> NOW);

            assertThat(inPlace.reply()).isEqualTo(onBytes.reply());
            assertThat(inPlace.write()).isEqualTo(onBytes.write());
            assertThat(inPlace.state()).isNull();
            if (onBytes.write()) {
                assertThat(inPlace.ttlMicros()).isEqualTo(onBytes.ttlMicros());
                stored = onBytes.state();
            }
            assertThat(held.encode()).isEqualTo(stored);
        }
    }

    @Test
    void aBatchThatCannotBeReadChangesNoStateHeldInPlace() {
        KeyState held = KeyState.empty();
        held.tryAcquire(LIMITS, NOW, 1);
        byte[] before = held.encode();
        GridOperation nested = GridOperation.batch(List.of(GridOperation.decide(LIMITS, 1, NOW),
                GridOperation.batch(List.of(GridOperation.decide(LIMITS, 1, NOW)))));
        GridOperation costless = GridOperation.batch(List.of(GridOperation.decide(LIMITS, 1, NOW),
                GridOperation.decisionOnWire(GridRequest.encode(LIMITS, 0, NOW))));

        assertThatThrownBy(() -> nested.runInPlace(held, () -> NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a batch within a batch");
        assertThatThrownBy(() -> costless.runInPlace(held, () -> NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cost below 1: 0");
        assertThat(held.encode()).isEqualTo(before);
    }

    @Test
    void aBatchDecidesInItsOrderEachOnTheStateTheOneBeforeLeftAndWritesTheLastState() {
        List<Limit> three = List.of(Limit.of(Algorithms.TOKEN_BUCKET, 3, Duration.ofSeconds(1)).named("three"));
        KeyState reference = KeyState.empty();
        List<GridOperation> decisions = List.of(GridOperation.decide(three, 2, NOW),
                GridOperation.decide(three, 2, NOW + 1), GridOperation.decide(three, 1, NOW + 2));
        GridOperation sent = GridOperation.batch(decisions);
        GridRequest.Outcome outcome = GridOperation.decisionOnWire(sent.request()).run(null, () -> NOW);

        assertThat(outcome.reply()).hasSize(3 * GridReply.LENGTH);
        for (int i = 0; i < 3; i++) {
            assertThat(decisionIn(outcome.reply(), i, three)).as("decision %s", i)
                    .isEqualTo(reference.tryAcquire(three, NOW + i, i == 2 ? 1 : 2));
        }
        // The second was denied: the third's admission wrote the state after both admissions.
        assertThat(outcome.write()).isTrue();
        assertThat(outcome.state()).isEqualTo(reference.encode());
        assertThat(sent.usesMemberClock()).isFalse();

        GridRequest.Outcome denied = GridOperation.batch(List.of(GridOperation.decide(three, 4, NOW),
                GridOperation.decide(three, 4, NOW))).run(null, () -> NOW);
        assertThat(denied.write()).isFalse();
    }

    /**
     * A hot key's batch of denials on an emptied bucket, part of a token refilled since, writes
     * nothing in either bucket algorithm: the owner neither stores the value nor sends it to
     * the backups (docs/benchmarks-history.md, 2026-12-04 22:02 UTC, measured this with a probe).
     */
    @Test
    void aBatchOfDenialsWritesNothingAfterARefillBelowOneToken() {
        for (String algorithm : List.of("token-bucket", "gcra")) {
            List<Limit> perSecond = List.of(Limit.of(Algorithms.byName(algorithm), 100, Duration.ofSeconds(1)).named("s"));
            KeyState reference = KeyState.empty();
            assertThat(reference.tryAcquire(perSecond, NOW, 100).allowed()).as(algorithm).isTrue();
            long halfAToken = NOW + 5_000;
            GridOperation batch = GridOperation.batch(List.of(GridOperation.decide(perSecond, 1, halfAToken),
                    GridOperation.decide(perSecond, 1, halfAToken), GridOperation.decide(perSecond, 1, halfAToken)));

            GridRequest.Outcome outcome = batch.run(reference.encode(), () -> halfAToken);

            for (int i = 0; i < 3; i++) {
                assertThat(decisionIn(outcome.reply(), i, perSecond).allowed()).as("%s decision %s", algorithm, i).isFalse();
            }
            assertThat(outcome.write()).as(algorithm).isFalse();
            assertThat(outcome.state()).as(algorithm).isNull();
        }
    }

    @Test
    void aBatchThatIsNotWhatTheCallerWroteIsRefused() {
        byte[] request = GridOperation.batch(List.of(GridOperation.decide(LIMITS, 1, NOW),
                GridOperation.decide(LIMITS, 1, NOW))).request();
        GridOperation truncated = GridOperation.decisionOnWire(java.util.Arrays.copyOf(request, request.length - 3));
        assertThatThrownBy(() -> truncated.run(null, () -> NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
        GridOperation nested = GridOperation.batch(List.of(GridOperation.batch(List.of(GridOperation.decide(LIMITS, 1, NOW))),
                GridOperation.decide(LIMITS, 1, NOW)));
        assertThatThrownBy(() -> nested.run(null, () -> NOW))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a batch within a batch");
        assertThatThrownBy(() -> GridOperation.batch(List.of(GridOperation.lease(LIMITS, 2, NOW))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only decisions");
    }

    @Test
    void theMembersClockIsReadOnlyWhenTheRequestAsksForIt() {
        AtomicInteger reads = new AtomicInteger();
        GridOperation atCallersTime = GridOperation.decide(LIMITS, 1, NOW);
        atCallersTime.run(null, () -> reads.incrementAndGet() + NOW);
        assertThat(atCallersTime.usesMemberClock()).isFalse();
        assertThat(reads).hasValue(0);

        GridOperation atMembersTime = GridOperation.decide(LIMITS, 1, GridRequest.MEMBER_CLOCK);
        atMembersTime.run(null, () -> reads.incrementAndGet() + NOW);
        assertThat(atMembersTime.usesMemberClock()).isTrue();
        assertThat(reads).hasValue(1);

        // A batch is one operation under the key's lock: its decisions share one reading.
        GridOperation batch = GridOperation.batch(List.of(atMembersTime, atMembersTime, atMembersTime));
        GridRequest.Outcome outcome = batch.run(null, () -> reads.incrementAndGet() + NOW);
        assertThat(reads).hasValue(2);
        assertThat(outcome.ttlMicros()).isEqualTo(KeyState.decode(outcome.state()).expiresAtMicros() - NOW - 2);
    }

    /** The decision in slot {@code slot} of a batch's reply. */
    private static Decision decisionIn(long[] batchReply, int slot, List<Limit> limits) {
        return GridReply.decode(Arrays.copyOfRange(batchReply, slot * GridReply.LENGTH, (slot + 1) * GridReply.LENGTH), limits);
    }
}
