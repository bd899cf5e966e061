package io.sluice.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ThreadCpuTest {

    private static final long SPUN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    @Test
    void aThreadsCpuAndSwitchesAreCountedInItsGroupWithItsDigitsReplaced() throws InterruptedException {
        long pid = ProcessHandle.current().pid();
        Map<String, ThreadCpu.Usage> before = ThreadCpu.byGroup(pid);
        ThreadMXBean jvm = ManagementFactory.getThreadMXBean();
        CountDownLatch spun = new CountDownLatch(1);
        CountDownLatch read = new CountDownLatch(1);
        // Alive while it is read: an ended thread is gone from /proc.
        Thread spinner = new Thread(() -> {
            long loops = 0;
            while (jvm.getCurrentThreadCpuTime() < SPUN_NANOS) {
                loops++;
            }
            spun.countDown();
            try {
                read.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            assertThat(loops).isPositive();
        }, "cpu-test-42");
        spinner.start();
        try {
            assertThat(spun.await(60, TimeUnit.SECONDS)).isTrue();
            // Parked, so it has given up the CPU at least once: a voluntary switch.
            while (spinner.getState() != Thread.State.WAITING) {
                Thread.sleep(1);
            }
            Map<String, ThreadCpu.Usage> used = ThreadCpu.between(before, ThreadCpu.byGroup(pid));

            assertThat(used).containsKey("cpu-test-N").doesNotContainKey("cpu-test-42");
            assertThat(used.get("cpu-test-N").cpuNanos()).isGreaterThanOrEqualTo(SPUN_NANOS * 9 / 10);
            assertThat(used.get("cpu-test-N").switches()).isPositive();
        } finally {
            read.countDown();
            spinner.join();
        }
    }
}
