package io.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** KeyState reads what {@link KeyStateFormats#version1} writes as the state the model holds. */
class KeyStateFormatsTest {

    private static final long START_MICROS = 1_767_225_600_000_000L;

    @Test
    void keyStateReadsVersion1AsTheStateItDescribes() {
        List<Limit> limits = new ArrayList<>();
        for (Algorithm algorithm : Algorithms.all()) {
            limits.add(Limit.of(algorithm, 5, Duration.ofMinutes(1)).named("limit-" + algorithm.name()));
        }
        ReferenceModel model = new ReferenceModel();
        model.tryAcquire("key", limits, START_MICROS, 2);
        model.tryAcquire("key", limits, START_MICROS + 1_000_000, 1);

        // The sliding log as the first release held it: [format 1's tag, t1, cost 2, t2, cost 1].
        HeldState log = model.held("key").stream()
                .filter(held -> held.limit().algorithm().equals(Algorithms.SLIDING_LOG)).findFirst().orElseThrow();
        assertThat(KeyStateFormats.stateVersion1(log))
                .containsExactly(2 * 256 + 1, START_MICROS, 2, START_MICROS + 1_000_000, 1);

        KeyState read = KeyState.decode(KeyStateFormats.version1(model.held("key")));

        for (long step = 0; step < 3; step++) {
            long now = START_MICROS + 2_000_000 + step;
            assertThat(read.tryAcquire(limits, now, 1)).as("request %d after the written state", step + 1)
                    .isEqualTo(model.tryAcquire("key", limits, now, 1));
        }
        assertThat(read.expiresAtMicros()).isEqualTo(model.held("key").stream()
                .mapToLong(HeldState::expiresAtMicros).max().orElseThrow());
    }
}
