package io.sluice.jmh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** How a benchmark thread walks the keys: every key once per pass, each thread in an order of its own. */
class ThreadKeysTest {

    private static final String[] KEYS = IntStream.range(0, 1_000).mapToObj(i -> "client-" + i).toArray(String[]::new);

    @Test
    void aWalkVisitsEveryKeyOncePerPass() {
        for (long seed = 0; seed < 20; seed++) {
            List<String> pass = pass(seed, KEYS.length);
            assertThat(new HashSet<>(pass)).hasSize(KEYS.length);
        }
    }

    @Test
    void twoThreadsWalkInOrdersOfTheirOwnNotOneBehindTheOther() {
        List<String> first = pass(1, KEYS.length);
        List<String> second = pass(2, KEYS.length);
        // A walk that steps one key at a time would have the second thread's successors equal
        // the first's for almost every key; here few are.
        Set<String> firstSteps = steps(first);
        long shared = steps(second).stream().filter(firstSteps::contains).count();
        assertThat(shared).isLessThan(KEYS.length / 10);
    }

    @Test
    void oneKeyIsWalkedInPlaceAndNoKeysIsRejectedByValue() {
        DecisionBenchmark.ThreadKeys walk = new DecisionBenchmark.ThreadKeys();
        walk.start(1, new Random(3));
        String[] hot = {"hot"};
        assertThat(List.of(walk.next(hot), walk.next(hot), walk.next(hot))).containsOnly("hot");
        assertThatThrownBy(() -> new DecisionBenchmark.ThreadKeys().start(0, new Random(3)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(": 0");
    }

    private static List<String> pass(long seed, int length) {
        DecisionBenchmark.ThreadKeys walk = new DecisionBenchmark.ThreadKeys();
        walk.start(KEYS.length, new Random(seed));
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < length; i++) {
            keys.add(walk.next(KEYS));
        }
        return keys;
    }

    /** Each key with the key visited after it, as one string. */
    private static Set<String> steps(List<String> walk) {
        Set<String> steps = new HashSet<>();
        for (int i = 0; i + 1 < walk.size(); i++) {
            steps.add(walk.get(i) + ">" + walk.get(i + 1));
        }
        return steps;
    }
}
