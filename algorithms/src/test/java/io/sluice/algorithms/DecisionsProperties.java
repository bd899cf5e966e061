package io.sluice.algorithms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The multi-limit rule: which limit binds a combined decision. */
class DecisionsProperties {

    private static final long[] STATE = {0};

    @Provide
    Arbitrary<List<Transition>> transitions() {
        Arbitrary<Long> small = Arbitraries.longs().between(0, 3);
        Arbitrary<Transition> transition = Arbitraries.integers().between(0, 9).flatMap(kind -> {
            if (kind == 0) {
                return Combinators.combine(small, small).as((rem, reset) -> Transition.costExceedsCapacity(rem, reset, STATE));
            }
            if (kind <= 3) {
                return Combinators.combine(small, small, Arbitraries.longs().between(1, 3))
                        .as((rem, reset, retry) -> Transition.denied(rem, reset, retry, STATE));
            }
            return Combinators.combine(small, small).as((rem, reset) -> Transition.allowed(rem, reset, STATE));
        });
        return transition.list().ofMinSize(1).ofMaxSize(5);
    }

    private static List<Limit> limits(int count) {
        List<Limit> limits = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            limits.add(Limit.of(Algorithms.GCRA, 10, Duration.ofSeconds(1)).named("limit-" + i));
        }
        return limits;
    }

    @Property(tries = 500)
    void bindsTheLimitTheRuleNames(@ForAll("transitions") List<Transition> transitions) {
        List<Limit> limits = limits(transitions.size());
        Decision decision = Decisions.combine(limits, transitions);
        int bound = limits.indexOf(decision.binding());
        Transition binding = transitions.get(bound);
        assertThat(decision.remaining()).isEqualTo(binding.remaining());
        assertThat(decision.resetAfter()).isEqualTo(Duration.ofNanos(binding.resetAfterMicros() * 1_000));
        int firstTooCostly = -1;
        boolean anyDenied = false;
        for (int i = 0; i < transitions.size(); i++) {
            Transition t = transitions.get(i);
            if (t.costExceedsCapacity() && firstTooCostly < 0) {
                firstTooCostly = i;
            }
            anyDenied |= !t.allowed();
        }
        if (firstTooCostly >= 0) {
            assertThat(decision.reason()).isEqualTo(Decision.Reason.COST_EXCEEDS_CAPACITY);
            assertThat(bound).isEqualTo(firstTooCostly);
            assertThat(decision.retryAfter()).isEmpty();
        } else if (anyDenied) {
            assertThat(decision.reason()).isEqualTo(Decision.Reason.LIMIT_EXCEEDED);
            assertThat(binding.allowed()).isFalse();
            assertThat(decision.retryAfter()).contains(Duration.ofNanos(binding.retryAfterMicros() * 1_000));
            for (int i = 0; i < transitions.size(); i++) {
                Transition t = transitions.get(i);
                if (!t.allowed()) {
                    assertThat(t.retryAfterMicros()).isLessThanOrEqualTo(binding.retryAfterMicros());
                    if (t.retryAfterMicros() == binding.retryAfterMicros()) {
                        assertThat(i).isGreaterThanOrEqualTo(bound);
                    }
                }
            }
        } else {
            assertThat(decision.allowed()).isTrue();
            for (int i = 0; i < transitions.size(); i++) {
                assertThat(transitions.get(i).remaining()).isGreaterThanOrEqualTo(binding.remaining());
                if (transitions.get(i).remaining() == binding.remaining()) {
                    assertThat(i).isGreaterThanOrEqualTo(bound);
                }
            }
        }
    }

    @Example
    void rejectsMismatchedLists() {
        assertThatThrownBy(() -> Decisions.combine(limits(2), List.of(Transition.allowed(1, 1, STATE))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 limits, 1 transitions");
        assertThatThrownBy(() -> Decisions.combine(List.of(), List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Decisions.combine(limits(1), new Transition[2]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 limits, 2 transitions");
    }
}
