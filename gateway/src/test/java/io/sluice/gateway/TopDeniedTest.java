package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TopDeniedTest {

    @Test
    void heavyHittersAreFoundAmongAFloodOfOneOffClientsInBoundedMemory() {
        TopDenied top = new TopDenied(100);
        for (int i = 0; i < 100_000; i++) {
            top.record("ip:one-off-" + i);
            if (i % 10 == 0) {
                top.record("key:abuser");
            }
            if (i % 50 == 0) {
                top.record("ip:203.0.113.9");
            }
        }

        List<TopDenied.Entry> entries = top.top(1_000);

        assertThat(entries).hasSizeLessThanOrEqualTo(100);
        assertThat(entries.get(0).client()).isEqualTo("key:abuser");
        assertThat(entries.get(1).client()).isEqualTo("ip:203.0.113.9");
        // Space-Saving never undercounts, and overcounts by at most the error it reports.
        assertThat(entries.get(0).denied()).isGreaterThanOrEqualTo(10_000);
        assertThat(entries.get(0).denied() - entries.get(0).error()).isLessThanOrEqualTo(10_000);
        assertThat(top.total()).isEqualTo(100_000 + 10_000 + 2_000);
    }

    @Test
    void countsAreExactWhileThereAreFewerClientsThanCounters() {
        TopDenied top = new TopDenied(10);
        top.record("a");
        top.record("b");
        top.record("a");

        assertThat(top.top(10)).containsExactly(new TopDenied.Entry("a", 2, 0), new TopDenied.Entry("b", 1, 0));
        assertThat(top.top(1)).hasSize(1);
    }

    @Test
    void everyClientDeniedMoreThanTotalOverCapacityIsListedWithABoundedOvercount() {
        // Space-Saving's guarantee, checked against exact counts of a skewed random stream.
        TopDenied top = new TopDenied(50);
        java.util.Map<String, Long> exact = new java.util.HashMap<>();
        java.util.Random random = new java.util.Random(7);
        for (int i = 0; i < 200_000; i++) {
            // About half the denials go to 20 heavy clients, the rest to 100,000 others.
            String client = random.nextBoolean() ? "heavy-" + random.nextInt(20) : "other-" + random.nextInt(100_000);
            top.record(client);
            exact.merge(client, 1L, Long::sum);
        }

        java.util.Map<String, TopDenied.Entry> listed = new java.util.HashMap<>();
        top.top(50).forEach(entry -> listed.put(entry.client(), entry));
        exact.forEach((client, count) -> {
            if (count > top.total() / top.capacity()) {
                assertThat(listed).as("%s, denied %d times", client, count).containsKey(client);
            }
        });
        listed.values().forEach(entry -> {
            long count = exact.getOrDefault(entry.client(), 0L);
            assertThat(entry.denied()).as(entry.client()).isGreaterThanOrEqualTo(count);
            assertThat(entry.denied() - entry.error()).as(entry.client()).isLessThanOrEqualTo(count);
        });
        assertThat(listed.keySet()).as("the heavy clients").containsAll(
                java.util.stream.IntStream.range(0, 20).mapToObj(i -> "heavy-" + i).toList());
    }
}
