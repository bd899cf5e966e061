package io.sluice.gateway;

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

    @Test
    void aSchedstatLineIsRunThenWaitThenSlices() {
        assertThat(ThreadTimes.parseSchedstat("281403714 377946779 87\n"))
                .isEqualTo(new ThreadTimes.Times(281_403_714, 377_946_779, 87));
        assertThatThrownBy(() -> ThreadTimes.parseSchedstat("12 34")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aStatusFileGivesTheNameAndBothKindsOfContextSwitches() {
        String status = "Name:\tlettuce-epollEv\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t1234\n"
                + "nonvoluntary_ctxt_switches:\t56\n";

        assertThat(ThreadTimes.parseStatus(status))
                .isEqualTo(new ThreadTimes.Sample("lettuce-epollEv", new ThreadTimes.Times(1234, 56, 0)));
        assertThatThrownBy(() -> ThreadTimes.parseStatus("Name:\tx\n")).isInstanceOf(IllegalArgumentException.class);
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
                1L, new ThreadTimes.Sample("qtp1-1", new ThreadTimes.Times(100, 10, 1)),
                2L, new ThreadTimes.Sample("qtp1-2", new ThreadTimes.Times(200, 20, 2)),
                3L, new ThreadTimes.Sample("ended", new ThreadTimes.Times(999, 999, 9)),
                4L, new ThreadTimes.Sample("old-name", new ThreadTimes.Times(400, 40, 4)));
        Map<Long, ThreadTimes.Sample> after = Map.of(
                1L, new ThreadTimes.Sample("qtp1-1", new ThreadTimes.Times(150, 30, 3)),
                2L, new ThreadTimes.Sample("qtp1-2", new ThreadTimes.Times(260, 20, 5)),
                4L, new ThreadTimes.Sample("qtp1-4", new ThreadTimes.Times(7, 1, 1)),
                5L, new ThreadTimes.Sample("lettuce-1", new ThreadTimes.Times(70, 5, 2)));

        Map<String, ThreadTimes.Times> groups = ThreadTimes.between(before, after,
                name -> name.startsWith("qtp") ? "jetty" : "other");

        // 50 + 60 from the threads seen twice; the reused id 4 under a new name counts from zero.
        assertThat(groups).containsOnly(
                Map.entry("jetty", new ThreadTimes.Times(50 + 60 + 7, 20 + 0 + 1, 2 + 3 + 1)),
                Map.entry("other", new ThreadTimes.Times(70, 5, 2)));
    }

    @Test
    void aThreadsCpuTimeShowsInItsOwnSchedstat() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux's /proc");
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        CountDownLatch spun = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong sink = new AtomicLong();
        Thread spinner = new Thread(() -> {
            // At least 50 ms on a CPU, however long the machine makes that take.
            long x = 0;
            while (mx.getCurrentThreadCpuTime() < 50_000_000L) {
                for (int i = 0; i < 10_000; i++) {
                    x = x * 31 + i;
                }
            }
            sink.set(x);
            spun.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "tt-spinner");
        Map<Long, ThreadTimes.Sample> before = ThreadTimes.snapshot(ProcessHandle.current().pid());
        spinner.start();
        try {
            assertThat(spun.await(60, TimeUnit.SECONDS)).isTrue();
            Map<Long, ThreadTimes.Sample> after = ThreadTimes.snapshot(ProcessHandle.current().pid());

            Map<String, ThreadTimes.Times> groups = ThreadTimes.between(before, after,
                    name -> name.equals("tt-spinner") ? "spinner" : "rest");

            assertThat(groups.get("spinner").runNanos()).isGreaterThanOrEqualTo(50_000_000L);
            assertThat(groups.get("spinner").slices()).isPositive();
        } finally {
            release.countDown();
            spinner.join();
        }
    }

    @Test
    void theBenchmarksThreadsFallIntoTheirGroups() {
        assertThat(GatewayBenchmark.threadGroup("load-3")).isEqualTo("load generator");
        assertThat(GatewayBenchmark.threadGroup("HttpClient-2-Se")).isEqualTo("load generator");
        assertThat(GatewayBenchmark.threadGroup("qtp1933863327-4")).isEqualTo("Jetty (proxies, their clients)");
        assertThat(GatewayBenchmark.threadGroup("proxy-client-12")).isEqualTo("Jetty (proxies, their clients)");
        assertThat(GatewayBenchmark.threadGroup("demo-upstream-1")).isEqualTo("upstream");
        assertThat(GatewayBenchmark.threadGroup("lettuce-nioEven")).isEqualTo("Lettuce");
        assertThat(GatewayBenchmark.threadGroup("C2 CompilerThre")).isEqualTo("JIT compilers");
        assertThat(GatewayBenchmark.threadGroup("ForkJoinPool.co")).isEqualTo("common pool");
    }
}
