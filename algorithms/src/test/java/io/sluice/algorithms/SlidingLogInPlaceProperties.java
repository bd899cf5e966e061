package io.sluice.algorithms;

import static io.sluice.algorithms.AlgorithmProperties.assertSameDecision;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Probing.NewState;
import io.sluice.algorithms.Scenarios.Replayed;
import io.sluice.algorithms.Scenarios.Scenario;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The sliding log changed in place ({@link NewState#IN_PLACE}) against the reference, the log
 * of format 2 that each admission copies: the same decisions and, read as format 2, the same
 * log after every request, over runs long enough to fill, compact, grow and shrink its array
 * many times, with the clock going back now and then and limits of other parameters.
 */
class SlidingLogInPlaceProperties {

    private static final Probing LOG = (Probing) Algorithms.SLIDING_LOG;

    /** Permits from 1 to 50 and up to 400 requests: most runs fill the log's room several times. */
    @Provide
    Arbitrary<Scenario> longRuns() {
        return Scenarios.scenarios(Scenarios.smallLimits(Algorithms.SLIDING_LOG), 400, true);
    }

    @Provide
    Arbitrary<Limit> otherLimits() {
        return Scenarios.smallLimits(Algorithms.SLIDING_LOG);
    }

    @Property(tries = 300)
    void decidesAsTheReferenceAndHoldsItsLogAfterEveryRequest(@ForAll("longRuns") Scenario scenario) {
        Limit limit = scenario.limit();
        long[] inPlace = null;
        for (Replayed r : Scenarios.replay(scenario)) {
            long[] before = inPlace == null ? null : inPlace.clone();
            Transition transition = LOG.transition(inPlace, r.atMicros(), limit, r.cost(),
                    NewState.IN_PLACE);
            assertSameDecision(transition, r.transition());
            if (!transition.allowed()) {
                assertThat(transition.state()).as("a denial's state").isSameAs(inPlace);
                assertThat(inPlace).as("a denial changes nothing").isEqualTo(before);
                continue;
            }
            long[] next = transition.state();
            assertThat(asFormat2(next)).as("the log as format 2").isEqualTo(r.transition().state());
            assertWellFormed(next);
            if (inPlace != null && hadRoomFor(inPlace, r.transition().state())) {
                assertThat(next).as("an admission with room, in the same array").isSameAs(inPlace);
            }
            inPlace = next;
        }
    }

    @Property(tries = 300)
    void decidesAsTheReferenceOnALogWrittenUnderOtherParameters(@ForAll("longRuns") Scenario scenario,
                                                                 @ForAll("otherLimits") Limit other) {
        long[] reference = null;
        long[] inPlace = null;
        long now = scenario.startMicros();
        for (Scenarios.Step step : scenario.steps()) {
            now += step.waitMicros();
            // Every other request under the other limit: a log longer than its permits, or shorter.
            Limit limit = (now & 1) == 0 ? scenario.limit() : other;
            Transition expected = LOG.transition(reference, now, limit, step.cost());
            Transition actual = LOG.transition(inPlace, now, limit, step.cost(), NewState.IN_PLACE);
            assertSameDecision(actual, expected);
            if (expected.allowed()) {
                reference = expected.state();
                inPlace = actual.state();
                assertThat(asFormat2(inPlace)).isEqualTo(reference);
                assertWellFormed(inPlace);
            }
        }
    }

    @Property(tries = 200)
    void aNewStateFromAnInPlaceLogIsTheReferencesAndLeavesItAsItWas(@ForAll("longRuns") Scenario scenario) {
        Limit limit = scenario.limit();
        long[] inPlace = null;
        for (Replayed r : Scenarios.replay(scenario)) {
            long[] before = inPlace == null ? null : inPlace.clone();
            Transition copied = LOG.transition(inPlace, r.atMicros(), limit, r.cost());
            Transition probe = LOG.transition(inPlace, r.atMicros(), limit, r.cost(),
                    NewState.NONE);
            assertSameDecision(copied, r.transition());
            assertSameDecision(probe, r.transition());
            assertThat(inPlace).as("read, not changed").isEqualTo(before);
            if (copied.allowed()) {
                assertThat(copied.state()).as("a new log of format 2").isEqualTo(r.transition().state());
                inPlace = LOG.transition(inPlace, r.atMicros(), limit, r.cost(),
                        NewState.IN_PLACE).state();
            }
        }
    }

    /** An in-place log read as the log of format 2 it stands for; any other state as it is. */
    static long[] asFormat2(long[] state) {
        if (!SlidingLog.isInPlace(state)) {
            return state;
        }
        long[] log = new long[SlidingLog.lengthAsFormat2(state)];
        for (int i = 0; i < log.length; i++) {
            log[i] = SlidingLog.getAsFormat2(state, i);
        }
        return log;
    }

    /** The layout's invariants: the head at or after the first slot, the end within the array, whole entries between. */
    private static void assertWellFormed(long[] log) {
        assertThat(log[0]).isEqualTo(SlidingLog.TAG_IN_PLACE);
        long head = log[SlidingLog.HEAD];
        long end = log[SlidingLog.END];
        assertThat(head).isGreaterThanOrEqualTo(SlidingLog.FIRST);
        assertThat(end).isBetween(head, (long) log.length);
        assertThat((end - head) % 2).isZero();
        int room = log.length - SlidingLog.FIRST;
        assertThat(room).isGreaterThanOrEqualTo(SlidingLog.MIN_ROOM);
    }

    /** Whether the in-place log {@code old} had room after its end for the admission that made {@code next}. */
    private static boolean hadRoomFor(long[] old, long[] next) {
        long[] oldLog = asFormat2(old);
        // Merged into the newest entry: the new log's newest time is the old one's.
        boolean merged = oldLog.length > 2 && next[next.length - 2] == oldLog[oldLog.length - 2];
        return old[SlidingLog.END] + (merged ? 0 : 2) <= old.length;
    }

    /** A run's last in-place log decides every cost, now and later, as its log of format 2 does. */
    @Property(tries = 100)
    void anInPlaceLogDecidesEveryRequestAsItsFormat2(@ForAll("longRuns") Scenario scenario) {
        List<Replayed> replayed = Scenarios.replay(scenario);
        long[] inPlace = null;
        for (Replayed r : replayed) {
            Transition transition = LOG.transition(inPlace, r.atMicros(), scenario.limit(),
                    r.cost(), NewState.IN_PLACE);
            if (transition.allowed()) {
                inPlace = transition.state();
            }
        }
        if (inPlace == null) {
            return;
        }
        long[] format2 = asFormat2(inPlace);
        long now = Scenarios.finalTime(scenario);
        for (long cost = 1; cost <= scenario.capacity() + 1; cost++) {
            for (long later : new long[] {0, 1, scenario.limit().periodMicros() / 2, scenario.limit().periodMicros()}) {
                assertSameDecision(
                        LOG.transition(inPlace, now + later, scenario.limit(), cost, NewState.NONE),
                        LOG.transition(format2, now + later, scenario.limit(), cost));
            }
        }
    }
}
