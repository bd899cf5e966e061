package io.sluice.algorithms;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.DoubleArithmetic.Outcome;
import io.sluice.algorithms.Scenarios.Replayed;
import io.sluice.algorithms.Scenarios.Scenario;
import io.sluice.api.Transition;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * At the largest parameters allowed, the rules computed on doubles (as Lua does) keep every
 * intermediate value an exact integer below 2^53 and give the Java reference's answers.
 */
class DoubleArithmeticProperties {

    @Provide
    Arbitrary<Scenario> largeScenarios() {
        return Arbitraries.of(Algorithms.all())
                .flatMap(algorithm -> Scenarios.scenarios(Scenarios.largeLimits(algorithm), 20, true));
    }

    @Provide
    Arbitrary<Scenario> smallScenarios() {
        return Arbitraries.of(Algorithms.all())
                .flatMap(algorithm -> Scenarios.scenarios(Scenarios.smallLimits(algorithm), 40, true));
    }

    @Property(tries = 500)
    void doublesAgreeAtTheLargestParameters(@ForAll("largeScenarios") Scenario scenario) {
        checkEveryStep(scenario);
    }

    @Property(tries = 200)
    void doublesAgreeAtSmallParameters(@ForAll("smallScenarios") Scenario scenario) {
        checkEveryStep(scenario);
    }

    private static void checkEveryStep(Scenario scenario) {
        for (Replayed r : Scenarios.replay(scenario)) {
            Transition expected = r.transition();
            Outcome actual = DoubleArithmetic.apply(r.stateBefore(), r.atMicros(), scenario.limit(), r.cost());
            assertThat(actual.allowed()).as("allowed").isEqualTo(expected.allowed());
            assertThat(actual.costExceedsCapacity()).as("costExceedsCapacity")
                    .isEqualTo(expected.costExceedsCapacity());
            assertThat((long) actual.remaining()).as("remaining").isEqualTo(expected.remaining());
            assertThat((long) actual.resetAfter()).as("resetAfter").isEqualTo(expected.resetAfterMicros());
            if (!expected.allowed() && !expected.costExceedsCapacity()) {
                assertThat((long) actual.retryAfter()).as("retryAfter").isEqualTo(expected.retryAfterMicros());
            }
            if (expected.allowed()) {
                long[] state = new long[actual.state().length];
                for (int i = 0; i < state.length; i++) {
                    state[i] = (long) actual.state()[i];
                }
                assertThat(state).as("state").isEqualTo(expected.state());
            }
        }
    }
}
