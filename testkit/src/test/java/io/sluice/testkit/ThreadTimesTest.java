package io.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ThreadTimesTest {

    private static final long SPUN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    @Test
    void aSampleIsTheStatusNameAndSwitchesWithTheSchedstatRunWaitAndSlices() {
        String status = "Name:\tlettuce-epollEv\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t1234\n"
                + "nonvoluntary_ctxt_switches:\t56\n";

        assertThat(ThreadTimes.parse(status, "281403714 377946779 87\n")).isEqualTo(new ThreadTimes.Sample(
                "lettuce-epollEv", new ThreadTimes.Times(281_403_714, 377_946_779, 87, 1234, 56)));
        assertThat(ThreadTimes.parse(status, "1 2 3").times().switches()).isEqualTo(1234 + 56);
        assertThatThrownBy(() -> ThreadTimes.parse(status, "12 34")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ThreadTimes.parse("Name:\tx\n", "1 2 3")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theMachineIsBusyButForIdleAndIowait() {
        ThreadTimes.Cpu cpu = ThreadTimes.parseCpu("cpu  100 2 30 500 7 1 4 3 9 0");

        assertThat(cpu).isEqualTo(new ThreadTimes.Cpu(100 + 2 + 30 + 1 + 4 + 3, 100 + 2 + 30 + 500 + 7 + 1 + 4 + 3));
        assertThatThrownBy(() -> ThreadTimes.parseCpu("cpu0 1 2 3 4 5 6 7 8"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aGroupCountsWhatItsThreadsDidBetweenTheSnapshots() {
        Map<Long, ThreadTimes.Sample> before = Map.of(
                1L, new ThreadTimes.Sample("qtp1-1", new ThreadTimes.Times(100, 10, 1, 5, 1)),
                2L, new ThreadTimes.Sample("qtp1-2", new ThreadTimes.Times(200, 20, 2, 6, 2)),
                3L, new ThreadTimes.Sample("ended", new ThreadTimes.Times(999, 999, 9, 9, 9)),
                4L, new ThreadTimes.Sample("old-name", new ThreadTimes.Times(400, 40, 4, 4, 4)));
        Map<Long, ThreadTimes.Sample> after = Map.of(
                1L, new ThreadTimes.Sample("qtp1-1", new ThreadTimes.Times(150, 30, 3, 8, 1)),
                2L, new ThreadTimes.Sample("qtp1-2", new ThreadTimes.Times(260, 20, 5, 6, 4)),
                4L, new ThreadTimes.Sample("qtp1-4", new ThreadTimes.Times(7, 1, 1, 1, 0)),
                5L, new ThreadTimes.Sample("lettuce-1", new ThreadTimes.Times(70, 5, 2, 3, 1)));

        Map<String, ThreadTimes.Times> groups = ThreadTimes.between(before, after,
                name -> name.startsWith("qtp") ? "jetty" : "other");

        // 1 and 2 from the threads seen twice; the reused id 4 under a new name counts from zero.
        assertThat(groups).containsOnly(
                Map.entry("jetty", new ThreadTimes.Times(50 + 60 + 7, 20 + 0 + 1, 2 + 3 + 1, 3 + 0 + 1, 0 + 2 + 0)),
                Map.entry("other", new ThreadTimes.Times(70, 5, 2, 3, 1)));
    }

    @Test
    void aPoolsThreadsAreOneGroupWithTheirDigitsReplaced() {
        assertThat(ThreadTimes.digitsAsN("hz.member.cach")).isEqualTo("hz.member.cach");
        assertThat(ThreadTimes.digitsAsN("qtp1933863327-4")).isEqualTo("qtpN-N");
    }

    @Test
    void aThreadsCpuTimeAndSwitchesShowInItsOwnCounters() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux's /proc");
        long pid = ProcessHandle.current().pid();
        ThreadMXBean jvm = ManagementFactory.getThreadMXBean();
        CountDownLatch spun = new CountDownLatch(1);
        CountDownLatch read = new CountDownLatch(1);
        AtomicLong sink = new AtomicLong();
        // Alive while it is read: an ended thread is gone from /proc.
        Thread spinner = new Thread(() -> {
            // At least 100 ms on a CPU, however long the machine makes that take.
            long x = 0;
            while (jvm.getCurrentThreadCpuTime() < SPUN_NANOS) {
                for (int i = 0; i < 10_000; i++) {
                    x = x * 31 + i;
                }
            }
            sink.set(x);
            spun.countDown();
            try {
                read.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "cpu-test-42");
        Map<Long, ThreadTimes.Sample> before = ThreadTimes.snapshot(pid);
        spinner.start();
        try {
            assertThat(spun.await(60, TimeUnit.SECONDS)).isTrue();
            // Parked, so it has given up the CPU at least once: a voluntary switch.
            while (spinner.getState() != Thread.State.WAITING) {
                Thread.onSpinWait();
            }
            Map<String, ThreadTimes.Times> groups = ThreadTimes.between(before, ThreadTimes.snapshot(pid),
                    ThreadTimes::digitsAsN);

            assertThat(groups).containsKey("cpu-test-N").doesNotContainKey("cpu-test-42");
            ThreadTimes.Times spun100 = groups.get("cpu-test-N");
            assertThat(spun100.runNanos()).isGreaterThanOrEqualTo(SPUN_NANOS * 9 / 10);
            assertThat(spun100.slices()).isPositive();
            assertThat(spun100.voluntarySwitches()).isPositive();
        } finally {
            read.countDown();
            spinner.join();
        }
    }

    @Test
    void aProcessThatHasEndedHasNoThreads() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux's /proc");
        Process ended = new ProcessBuilder("true").start();
        assertThat(ended.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(ThreadTimes.snapshot(ended.pid())).isEmpty();
    }
}
