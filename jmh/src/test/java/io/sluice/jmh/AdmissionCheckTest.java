package io.sluice.jmh;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@link DecisionBenchmark#checkAdmissions}: a limiter that does not enforce its limit fails the trial. */
class AdmissionCheckTest {

    @Test
    void aLimiterThatAdmitsEverythingFails() {
        Limiter admitsAll = new Limiter() {
            @Override
            public boolean tryAcquire(String key, long cost) {
                return true;
            }

            @Override
            public void close() {
            }
        };

        assertThatThrownBy(() -> DecisionBenchmark.checkAdmissions(admitsAll, LimitShape.SINGLE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("admitted 300 of 300");
    }

    @Test
    void everyLocalImplementationEnforcesItsLimit() {
        for (LimitShape shape : LimitShape.values()) {
            for (LocalImpl impl : LocalImpl.values()) {
                try (Limiter limiter = impl.create(shape)) {
                    assertThatCode(() -> DecisionBenchmark.checkAdmissions(limiter, shape))
                            .as("%s on %s", impl, shape).doesNotThrowAnyException();
                }
            }
        }
    }
}
