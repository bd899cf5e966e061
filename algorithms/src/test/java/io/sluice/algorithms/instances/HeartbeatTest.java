package io.sluice.algorithms.instances;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The heartbeat's own behaviour, on a registry held in memory (the stores' tests run it on
 * real servers): it answers from memory, keeps the last count through failures and counts
 * them, and leaves on close.
 */
class HeartbeatTest {

    private static final Duration INTERVAL = Duration.ofMillis(20);

    /** The answers the next beats give: a count, or a failure. */
    private final BlockingQueue<Object> answers = new ArrayBlockingQueue<>(100);
    private final List<String> calls = Collections.synchronizedList(new ArrayList<>());

    private int beat(String id, long ttlMicros, boolean leave, Duration timeout) throws Exception {
        calls.add((leave ? "leave " : "beat ") + id + " " + ttlMicros);
        Object answer = leave ? Integer.valueOf(0) : answers.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (answer instanceof Integer) {
            return (Integer) answer;
        }
        throw new IllegalStateException("store down");
    }

    @Test
    void keepsTheLastCountThroughFailedBeatsCountsThemAndLeavesOnClose() throws Exception {
        answers.add(3);
        try (Heartbeat heartbeat = Heartbeat.start("a test registry", INTERVAL, this::beat)) {
            awaitUntil(() -> heartbeat.instances().equals(OptionalInt.of(3)));
            answers.add("fail");
            answers.add("fail");
            awaitUntil(() -> heartbeat.failures() >= 2);
            assertThat(heartbeat.instances()).isEqualTo(OptionalInt.of(3));
            answers.add(2);
            awaitUntil(() -> heartbeat.instances().equals(OptionalInt.of(2)));
            heartbeat.close();
            assertThat(calls).last().isEqualTo("leave " + heartbeat.instanceId() + " " + 3 * 20_000);
        }
        assertThat(calls).first().asString().startsWith("beat ");
    }

    @Test
    void isEmptyBeforeTheFirstAnswer() {
        try (Heartbeat heartbeat = Heartbeat.start("a test registry", Duration.ofHours(1), this::beat)) {
            assertThat(heartbeat.instances()).isEmpty();
        }
    }

    @Test
    void anIntervalThatIsNotPositiveIsRejected() {
        assertThatThrownBy(() -> Heartbeat.start("a test registry", Duration.ZERO, this::beat))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0S");
    }

    private static void awaitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waited 30 s for the heartbeat").isNegative();
            Thread.sleep(5);
        }
    }
}
