package io.sluice.store.hazelcast;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The figures of {@code docs/stores/hazelcast.md}: start-up time of an embedded member,
 * latency of one decision from a member that does not own the key (and from a client, and
 * on the owner, for comparison), and heap per million keys. A measurement, not a test: its
 * name matches neither surefire's nor failsafe's pattern, so it runs only when asked:
 *
 * <pre>
 * mvn -o -pl store-hazelcast -am test -Dtest=HazelcastMeasurement -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
class HazelcastMeasurement {

    private static final int WARM_UP = 20_000;
    private static final int MEASURED = 50_000;
    private static final int KEYS = 1_000;
    private static final int HEAP_KEYS = 1_000_000;
    private static final Limit PER_SECOND = Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1));
    private static final Limit PER_DAY = Limit.of(Algorithms.FIXED_WINDOW, 1_000_000, Duration.ofDays(1));

    @Test
    void measure() throws Exception {
        System.out.println("# Hazelcast store measurement, " + Instant.now() + ", "
                + Runtime.getRuntime().availableProcessors() + " cores, Java "
                + System.getProperty("java.version") + ", max heap "
                + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB, load average " + loadAverage());
        try (TestCluster cluster = new TestCluster()) {
            long start = System.nanoTime();
            HazelcastInstance first = cluster.startMember();
            long firstMillis = (System.nanoTime() - start) / 1_000_000;
            start = System.nanoTime();
            HazelcastInstance second = cluster.startMember();
            long secondMillis = (System.nanoTime() - start) / 1_000_000;
            System.out.printf("start-up: first member (cold JVM) %d ms, second member joining %d ms%n",
                    firstMillis, secondMillis);
            HazelcastInstance client = cluster.startClient();

            List<String> keysOfSecond = new ArrayList<>();
            for (int i = 0; keysOfSecond.size() < KEYS; i++) {
                String key = "client-" + i;
                if (cluster.owner(key) == second) {
                    keysOfSecond.add(key);
                }
            }
            while (!first.getPartitionService().isClusterSafe()) {
                Thread.sleep(10);
            }
            // A generous timeout: the first calls load classes and open connections.
            Duration timeout = Duration.ofSeconds(10);
            Store onNonOwner = HazelcastStore.builder(first).mapName("latency").timeout(timeout).build();
            Store onOwner = HazelcastStore.builder(second).mapName("latency").timeout(timeout).build();
            Store onClient = HazelcastStore.builder(client).mapName("latency").timeout(timeout).build();
            latency("member, key owned by the other member, 1 limit", onNonOwner, keysOfSecond, List.of(PER_SECOND));
            latency("member, key owned by the other member, 2 limits", onNonOwner, keysOfSecond,
                    List.of(PER_SECOND, PER_DAY));
            latency("client (smart routing: straight to the owner), 1 limit", onClient, keysOfSecond,
                    List.of(PER_SECOND));
            latency("member that owns the key, 1 limit", onOwner, keysOfSecond, List.of(PER_SECOND));
        }
        heapPerMillionKeys();
    }

    private static void latency(String label, Store store, List<String> keys, List<Limit> limits) {
        int warmUpFailures = 0;
        for (int i = 0; i < WARM_UP; i++) {
            try {
                store.tryAcquire(keys.get(i % keys.size()), limits, 1).toCompletableFuture().join();
            } catch (RuntimeException e) {
                warmUpFailures++;
            }
        }
        if (warmUpFailures > 0) {
            System.out.printf("(%s: %d of the warm-up calls failed)%n", label, warmUpFailures);
        }
        long[] nanos = new long[MEASURED];
        for (int i = 0; i < MEASURED; i++) {
            long start = System.nanoTime();
            store.tryAcquire(keys.get(i % keys.size()), limits, 1).toCompletableFuture().join();
            nanos[i] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        System.out.printf("latency, %s: p50 %d us, p99 %d us, p99.9 %d us (%d sequential decisions)%n",
                label, nanos[MEASURED / 2] / 1_000, nanos[MEASURED * 99 / 100] / 1_000,
                nanos[MEASURED * 999 / 1000] / 1_000, MEASURED);
    }

    /** One member alone (so no backups), a million keys with the two limits of a typical tier. */
    private static void heapPerMillionKeys() throws Exception {
        try (TestCluster cluster = new TestCluster()) {
            HazelcastInstance member = cluster.startMember();
            Store store = HazelcastStore.builder(member).mapName("heap").timeout(Duration.ofSeconds(30)).build();
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            long before = usedHeapAfterGc(memory);
            List<CompletableFuture<?>> batch = new ArrayList<>();
            for (int i = 0; i < HEAP_KEYS; i++) {
                batch.add(store.tryAcquire("client-" + i, List.of(PER_SECOND, PER_DAY), 1).toCompletableFuture());
                if (batch.size() == 1_000) {
                    CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new)).join();
                    batch.clear();
                }
            }
            CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new)).join();
            long after = usedHeapAfterGc(memory);
            long entryCost = member.getMap("heap").getLocalMapStats().getOwnedEntryMemoryCost();
            System.out.printf("heap per million keys (2 limits each, no backup): %d MiB measured (used heap"
                    + " after GC), %d MiB by Hazelcast's entry cost; %d bytes per key measured%n",
                    (after - before) / (1 << 20), entryCost / (1 << 20), (after - before) / HEAP_KEYS);
            System.out.printf("encoded state of one such key: %d bytes%n",
                    member.<String, byte[]>getMap("heap").get("client-0").length);
        }
    }

    /** The machine's load when the measurement starts: other work on it skews the figures. */
    private static String loadAverage() {
        Path loadavg = Path.of("/proc/loadavg");
        try {
            return Files.exists(loadavg) ? Files.readString(loadavg).trim() : "unknown";
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static long usedHeapAfterGc(MemoryMXBean memory) throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
