package io.sluice.algorithms;

import static io.sluice.algorithms.Scenarios.finalState;
import static io.sluice.algorithms.Scenarios.finalTime;
import static io.sluice.algorithms.Scenarios.replay;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Scenarios.Replayed;
import io.sluice.algorithms.Scenarios.Scenario;
import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

/** The common rules of docs/algorithms.md, for every algorithm, on random requests. */
class AlgorithmProperties {

    @Provide
    Arbitrary<Scenario> anyScenario() {
        return Arbitraries.of(Algorithms.all())
                .flatMap(algorithm -> Scenarios.scenarios(Scenarios.smallLimits(algorithm), 60, true));
    }

    @Provide
    Arbitrary<Limit> anyLimit() {
        return Arbitraries.of(Algorithms.all()).flatMap(Scenarios::smallLimits);
    }

    @Property(tries = 250)
    void everyTransitionKeepsTheCommonRules(@ForAll("anyScenario") Scenario scenario) {
        for (Replayed r : replay(scenario)) {
            Transition transition = r.transition();
            assertThat(transition.remaining()).isBetween(0L, scenario.capacity());
            assertThat(transition.resetAfterMicros()).isNotNegative();
            if (r.cost() > scenario.capacity()) {
                assertThat(transition.costExceedsCapacity()).isTrue();
            }
            if (transition.allowed()) {
                assertThat(transition.state()).isNotSameAs(r.stateBefore());
                assertThat(transition.resetAfterMicros()).isPositive();
            } else {
                assertThat(transition.state()).isSameAs(r.stateBefore());
                if (!transition.costExceedsCapacity()) {
                    assertThat(transition.retryAfterMicros()).isPositive();
                }
            }
        }
    }

    @Property(tries = 250)
    void theInputStateIsNeverModified(@ForAll("anyScenario") Scenario scenario) {
        for (Replayed r : replay(scenario)) {
            if (r.stateBefore() != null) {
                long[] copy = r.stateBefore().clone();
                scenario.limit().algorithm().transition(r.stateBefore(), r.atMicros(), scenario.limit(), r.cost());
                assertThat(r.stateBefore()).isEqualTo(copy);
            }
        }
    }

    @Property(tries = 250)
    void aTransitionWithoutItsStateBuiltHasTheSameFigures(@ForAll("anyScenario") Scenario scenario) {
        for (Replayed r : replay(scenario)) {
            Transition probe = ((Probing) scenario.limit().algorithm())
                    .transition(r.stateBefore(), r.atMicros(), scenario.limit(), r.cost(), Probing.NewState.NONE);
            assertSameDecision(probe, r.transition());
            assertThat(probe.retryAfterMicros()).as("retryAfter").isEqualTo(r.transition().retryAfterMicros());
            assertThat(probe.state()).as("state").isSameAs(probe.allowed() ? Checks.NO_STATE : r.stateBefore());
        }
    }

    @Property(tries = 250)
    void aTransitionInPlaceWritesTheSameStateIntoTheOldArrayWhenItFits(@ForAll("anyScenario") Scenario scenario) {
        for (Replayed r : replay(scenario)) {
            long[] old = r.stateBefore() == null ? null : r.stateBefore().clone();
            Transition inPlace = ((Probing) scenario.limit().algorithm())
                    .transition(old, r.atMicros(), scenario.limit(), r.cost(), Probing.NewState.IN_PLACE);
            assertSameDecision(inPlace, r.transition());
            assertThat(inPlace.retryAfterMicros()).as("retryAfter").isEqualTo(r.transition().retryAfterMicros());
            if (!inPlace.allowed()) {
                assertThat(inPlace.state()).as("a denial's state").isSameAs(old);
                assertThat(old).as("a denial changes nothing").isEqualTo(r.stateBefore());
                continue;
            }
            // A sliding log in place is another layout of the same log (SlidingLogInPlaceProperties).
            assertThat(SlidingLogInPlaceProperties.asFormat2(inPlace.state())).as("state")
                    .isEqualTo(r.transition().state());
            boolean fits = old != null && old.length == r.transition().state().length
                    && !(scenario.limit().algorithm() instanceof SlidingLog);
            if (fits) {
                assertThat(inPlace.state()).as("the old array, overwritten").isSameAs(old);
            } else {
                assertThat(inPlace.state()).as("a new array").isNotSameAs(old);
            }
        }
    }

    @Property(tries = 400)
    void retryAfterIsExact(@ForAll("anyScenario") Scenario scenario, @ForAll @LongRange(min = 1, max = 200) long cost) {
        List<Replayed> replayed = replay(scenario);
        long[] state = finalState(replayed);
        long now = finalTime(scenario);
        Limit limit = scenario.limit();
        long c = Math.min(cost, scenario.capacity());
        Transition denied = limit.algorithm().transition(state, now, limit, c);
        if (!denied.allowed()) {
            long retryAfter = denied.retryAfterMicros();
            assertThat(retryAfter).isPositive();
            assertThat(limit.algorithm().transition(state, now + retryAfter, limit, c).allowed())
                    .as("admitted after retryAfter %d", retryAfter).isTrue();
            assertThat(limit.algorithm().transition(state, now + retryAfter - 1, limit, c).allowed())
                    .as("denied just before retryAfter %d", retryAfter).isFalse();
        }
    }

    @Property(tries = 400)
    void resetAfterIsExact(@ForAll("anyScenario") Scenario scenario) {
        List<Replayed> replayed = replay(scenario);
        if (replayed.isEmpty()) {
            return;
        }
        Replayed last = replayed.get(replayed.size() - 1);
        long[] state = last.transition().allowed() ? last.transition().state() : last.stateBefore();
        long resetAfter = last.transition().resetAfterMicros();
        Limit limit = scenario.limit();
        long capacity = scenario.capacity();
        Algorithm algorithm = limit.algorithm();
        // Full means the whole capacity fits at once.
        assertThat(algorithm.transition(state, last.atMicros() + resetAfter, limit, capacity).allowed())
                .as("full at resetAfter %d", resetAfter).isTrue();
        if (resetAfter > 0) {
            assertThat(algorithm.transition(state, last.atMicros() + resetAfter - 1, limit, capacity).allowed())
                    .as("not full before resetAfter %d", resetAfter).isFalse();
        }
    }

    @Property(tries = 250)
    void afterResetAfterTheStateIsFresh(@ForAll("anyScenario") Scenario scenario,
                                        @ForAll @LongRange(min = 0, max = 100_000_000) long later,
                                        @ForAll @LongRange(min = 1, max = 201) long cost) {
        List<Replayed> replayed = replay(scenario);
        if (replayed.isEmpty()) {
            return;
        }
        Replayed last = replayed.get(replayed.size() - 1);
        long[] state = last.transition().allowed() ? last.transition().state() : last.stateBefore();
        long at = last.atMicros() + last.transition().resetAfterMicros() + later;
        Limit limit = scenario.limit();
        assertSameDecision(limit.algorithm().transition(state, at, limit, cost), limit.algorithm().transition(null, at, limit, cost));
    }

    @Property(tries = 250)
    void waitingNeverHurtsEvenWhenTheClockWentBack(@ForAll("anyScenario") Scenario scenario,
                                                   @ForAll @LongRange(min = -10_000_000, max = 10_000_000) long shift,
                                                   @ForAll @LongRange(min = 0, max = 10_000_000) long wait,
                                                   @ForAll @LongRange(min = 1, max = 200) long cost) {
        long[] state = finalState(replay(scenario));
        long early = finalTime(scenario) + shift;
        Limit limit = scenario.limit();
        Transition before = limit.algorithm().transition(state, early, limit, cost);
        Transition after = limit.algorithm().transition(state, early + wait, limit, cost);
        if (before.allowed()) {
            assertThat(after.allowed()).isTrue();
        }
        long remainingBefore = before.allowed() ? before.remaining() + cost : before.remaining();
        long remainingAfter = after.allowed() ? after.remaining() + cost : after.remaining();
        assertThat(remainingAfter).isGreaterThanOrEqualTo(Math.min(remainingBefore, scenario.capacity()));
    }

    @Property(tries = 250)
    void aStateWrittenUnderOtherParametersIsRead(@ForAll("anyScenario") Scenario scenario,
                                                 @ForAll("anyLimit") Limit other,
                                                 @ForAll @LongRange(min = 0, max = 10_000_000) long wait,
                                                 @ForAll @LongRange(min = 1, max = 200) long cost) {
        Algorithm algorithm = scenario.limit().algorithm();
        if (other.algorithm() != algorithm) {
            return;
        }
        long[] state = finalState(replay(scenario));
        long now = finalTime(scenario) + wait;
        Transition transition = algorithm.transition(state, now, other, cost);
        assertThat(transition.remaining()).isBetween(0L, other.burst());
        assertThat(transition.resetAfterMicros()).isNotNegative();
        assertThat(transition.costExceedsCapacity()).isEqualTo(cost > other.burst());
        if (!transition.allowed() && !transition.costExceedsCapacity()) {
            long retryAfter = transition.retryAfterMicros();
            assertThat(retryAfter).isPositive();
            assertThat(algorithm.transition(state, now + retryAfter, other, cost).allowed()).isTrue();
        }
        if (transition.allowed() && algorithm == Algorithms.TOKEN_BUCKET) {
            BucketRate rate = BucketRate.of(other.algorithm().name(), other);
            assertThat(transition.state()[1]).isBetween(0L, rate.units(other.burst() - cost));
        }
    }

    @Property(tries = 300)
    void tokenBucketAndGcraDecideTheSame(@ForAll("bucketTwins") Scenario scenario) {
        Limit gcra = Limit.of(Algorithms.GCRA, scenario.limit().permits(), scenario.limit().period())
                .withBurst(scenario.limit().burst());
        Scenario twin = new Scenario(gcra, scenario.startMicros(), scenario.steps());
        List<Replayed> bucket = replay(scenario);
        List<Replayed> cell = replay(twin);
        for (int i = 0; i < bucket.size(); i++) {
            Transition a = bucket.get(i).transition();
            Transition b = cell.get(i).transition();
            assertSameDecision(a, b);
        }
    }

    @Provide
    Arbitrary<Scenario> bucketTwins() {
        return Scenarios.scenarios(Scenarios.smallLimits(Algorithms.TOKEN_BUCKET), 80, false);
    }

    static void assertSameDecision(Transition actual, Transition expected) {
        assertThat(actual.allowed()).as("allowed").isEqualTo(expected.allowed());
        assertThat(actual.costExceedsCapacity()).as("costExceedsCapacity").isEqualTo(expected.costExceedsCapacity());
        assertThat(actual.remaining()).as("remaining").isEqualTo(expected.remaining());
        assertThat(actual.resetAfterMicros()).as("resetAfter").isEqualTo(expected.resetAfterMicros());
        if (!actual.allowed() && !actual.costExceedsCapacity()) {
            assertThat(actual.retryAfterMicros()).as("retryAfter").isEqualTo(expected.retryAfterMicros());
        }
    }
}
