package io.sluice.store.ignite;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Semaphore;
import org.apache.ignite.DataRegionMetrics;
import org.apache.ignite.Ignite;
import org.apache.ignite.cache.affinity.Affinity;

/**
 * Measures what {@code docs/stores/ignite.md} reports: start-up time of an embedded node, the
 * latency of one decision from a node that is not the key's primary, and the memory per million
 * keys. Not a test: run it by hand with the command in the docs and copy its output there.
 */
public final class IgniteStoreMeasurement {

    private static final int WARM_UP = 30_000;
    private static final int MEASURED = 100_000;
    private static final int KEYS_FOR_MEMORY = 1_000_000;

    private IgniteStoreMeasurement() {
    }

    public static void main(String[] args) throws Exception {
        System.out.printf("load average at start: %.1f on %d cores%n", loadAverage(),
                Runtime.getRuntime().availableProcessors());
        Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 1_000, Duration.ofSeconds(1));
        try (IgniteMembers members = new IgniteMembers("measure", 1_536L * 1024 * 1024)) {
            long start = System.nanoTime();
            Ignite first = members.startServer("a");
            long firstStartMillis = (System.nanoTime() - start) / 1_000_000;
            start = System.nanoTime();
            Ignite second = members.startServer("b");
            long secondStartMillis = (System.nanoTime() - start) / 1_000_000;
            System.out.printf("start-up: first node %d ms (cold JVM), second node joining %d ms%n",
                    firstStartMillis, secondStartMillis);

            Store store = IgniteStore.builder(first).backups(1).timeout(Duration.ofSeconds(5)).build();
            latency("decision from a node that is not the key's primary (1 backup, full sync)",
                    store, keysWithPrimary(first, second, 1_000), limit);
            latency("decision on the key's primary node itself (1 backup, full sync)",
                    store, keysWithPrimary(first, first, 1_000), limit);
            store.close();
            org.apache.ignite.Ignition.stop(second.name(), true);

            // A day-long limit, so that no key expires while the memory is measured.
            Limit daily = Limit.of(Algorithms.TOKEN_BUCKET, 1_000, Duration.ofDays(1));
            Store memoryStore = IgniteStore.builder(first).cacheName("memory").backups(0)
                    .timeout(Duration.ofSeconds(5)).build();
            long heapBefore = usedHeapAfterGc();
            long offHeapBefore = region(first).getPhysicalMemorySize();
            Semaphore inFlight = new Semaphore(64);
            for (int i = 0; i < KEYS_FOR_MEMORY; i++) {
                inFlight.acquire();
                memoryStore.tryAcquire("client-" + i, List.of(daily), 1).whenComplete((decision, failure) -> inFlight.release());
            }
            inFlight.acquire(64);
            long heapAfter = usedHeapAfterGc();
            long offHeapAfter = region(first).getPhysicalMemorySize();
            System.out.printf("%,d keys (one token-bucket limit each, one node, no backup): heap %+.1f MB, "
                            + "off-heap data region pages %+.1f MB, cache size %,d%n", KEYS_FOR_MEMORY,
                    (heapAfter - heapBefore) / 1e6, (offHeapAfter - offHeapBefore) / 1e6,
                    first.cache("memory").size());
            memoryStore.close();
        }
        System.out.printf("load average at the end: %.1f%n", loadAverage());
    }

    /** Other work on the machine inflates latencies; the figures are read with this. */
    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static void latency(String what, Store store, List<String> keys, Limit limit) {
        for (int i = 0; i < WARM_UP; i++) {
            decide(store, keys.get(i % keys.size()), limit);
        }
        long[] nanos = new long[MEASURED];
        for (int i = 0; i < MEASURED; i++) {
            long t0 = System.nanoTime();
            decide(store, keys.get(i % keys.size()), limit);
            nanos[i] = System.nanoTime() - t0;
        }
        Arrays.sort(nanos);
        System.out.printf("%s, %,d calls after %,d to warm up: p50 %.1f us, p99 %.1f us, p99.9 %.1f us%n",
                what, MEASURED, WARM_UP, nanos[MEASURED / 2] / 1e3, nanos[MEASURED * 99 / 100] / 1e3,
                nanos[MEASURED * 999 / 1000] / 1e3);
    }

    private static void decide(Store store, String key, Limit limit) {
        store.tryAcquire(key, List.of(limit), 1).toCompletableFuture().join();
    }

    private static List<String> keysWithPrimary(Ignite caller, Ignite primary, int count) {
        Affinity<String> affinity = caller.affinity(IgniteStore.DEFAULT_CACHE_NAME);
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++) {
            String key = "remote-" + i;
            if (affinity.isPrimary(primary.cluster().localNode(), key)) {
                keys.add(key);
            }
        }
        return keys;
    }

    private static DataRegionMetrics region(Ignite node) {
        return node.dataRegionMetrics("sluice-test");
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
