package io.sluice.algorithms;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.Limit;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ChunkedLogTest {

    private static final long T0 = 1_764_000_000_000_000L;

    @Test
    void anAdmissionOnAHeadCopiesTheHeadOnce() {
        // A head of 1,000 entries whose flushes are never acknowledged: about 2,010 longs,
        // 16 KB. An admission used to trim it into one new array and append to a second.
        Limit log = Limit.of(Algorithms.SLIDING_LOG, 10_000, Duration.ofSeconds(100)).named("log");
        ChunkedLog chunked = new ChunkedLog(ChunkedLog.CHUNK_ENTRIES);
        long[] head = null;
        for (int i = 0; i < 1_000; i++) {
            head = chunked.decide(head, T0 + 1_000L * i, log, 1, index -> null).state();
        }
        assertThat(ChunkedLog.isHead(head)).isTrue();
        long headBytes = (long) head.length * Long.BYTES;
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        long fewest = Long.MAX_VALUE;
        for (int round = 0; round < 20; round++) {
            long before = threads.getThreadAllocatedBytes(thread);
            ChunkedLog.Outcome admitted = chunked.decide(head, T0 + 1_000_000 + round, log, 1, index -> null);
            fewest = Math.min(fewest, threads.getThreadAllocatedBytes(thread) - before);
            assertThat(admitted.transition().allowed()).isTrue();
        }
        // The new head (the old one and an entry) and its flush's chunk, 1 KB, not two heads.
        assertThat(fewest).isBetween(headBytes, headBytes + 4_096);
    }
}
