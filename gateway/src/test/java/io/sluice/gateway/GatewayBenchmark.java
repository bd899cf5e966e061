package io.sluice.gateway;

import io.sluice.testkit.redis.RedisFixture;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Not a test: the measurements behind docs/benchmarks.md's gateway section, run by
 * {@code gateway/bench.sh}. Everything runs on this machine: a redis-server (the testkit
 * fixture), the demo upstream, the gateways, and a closed-loop load generator (java.net.http).
 *
 * <ul>
 *   <li>{@code latency}: three proxies on one upstream, limiting on Redis, limiting on the local
 *       store, and not limiting, requests interleaved between them by the same workers, so all
 *       see the same machine; the difference of percentiles is what the limiter adds.</li>
 *   <li>{@code flood}: 100,000 requests with distinct invented API keys; the heap after a full GC
 *       and Redis's key count before and after show whether state was created for them.</li>
 * </ul>
 */
public final class GatewayBenchmark {

    private static final int KEYS = 1_000;

    private GatewayBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "latency";
        int workers = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int requests = args.length > 2 ? Integer.parseInt(args[2]) : (mode.equals("flood") ? 100_000 : 20_000);
        System.out.printf("gateway benchmark %s, %d workers, %d requests, %s, load average before: %s%n", mode,
                workers, requests, Runtime.version(), loadAverage());
        try (RedisFixture redis = RedisFixture.standalone().start(); DemoUpstream upstream = DemoUpstream.start()) {
            Path dir = Files.createTempDirectory("sluice-bench");
            if (mode.equals("flood")) {
                flood(redis, upstream, dir, workers, requests, "redis");
                flood(redis, upstream, dir, workers, requests, "local");
            } else {
                latency(redis, upstream, dir, workers, requests);
            }
        }
        System.out.printf("load average after: %s%n", loadAverage());
        System.exit(0);
    }

    private static Path config(Path dir, String store, String redisUri) throws Exception {
        StringBuilder yaml = new StringBuilder();
        yaml.append(store.equals("redis") ? """
                store:
                  type: redis
                  uri: %s
                  timeout: 50ms
                """.formatted(redisUri) : "store:\n  type: local\n");
        yaml.append("""
                tiers:
                  - name: bench
                    limits:
                      - name: per-second
                        algorithm: token-bucket
                        permits: 1_000_000
                        period: 1s
                      - name: per-day
                        algorithm: fixed-window
                        permits: 1_000_000_000
                        period: 1d
                api-keys:
                  unknown: reject
                  keys:
                """);
        for (int i = 0; i < KEYS; i++) {
            yaml.append("    - key: \"bench-key-").append(i).append("\"\n      tier: bench\n");
        }
        Path file = dir.resolve(store + ".yaml");
        Files.writeString(file, yaml, StandardCharsets.UTF_8);
        return file;
    }

    private static Gateway gateway(Path config, DemoUpstream upstream, boolean limiting) {
        return Gateway.start(new Gateway.Settings(config, upstream.uri(), "127.0.0.1", 0, "127.0.0.1", 0,
                Duration.ofSeconds(5), limiting));
    }

    private static void latency(RedisFixture redis, DemoUpstream upstream, Path dir, int workers, int requests)
            throws Exception {
        try (Gateway onRedis = gateway(config(dir, "redis", redis.uri()), upstream, true);
             Gateway onLocal = gateway(config(dir, "local", redis.uri()), upstream, true);
             Gateway plain = gateway(config(dir, "local", redis.uri()), upstream, false)) {
            URI[] targets = {target(onRedis), target(onLocal), target(plain)};
            run(targets, workers, requests / 2, null);   // warm-up: JIT, connections, scripts loaded
            Map<Integer, Integer> statuses = new TreeMap<>();
            long[][] nanos = run(targets, workers, requests, statuses);
            System.out.printf("statuses: %s%n", statuses);
            print("limiting on redis", nanos[0]);
            print("limiting on local", nanos[1]);
            print("not limiting", nanos[2]);
            added("redis", nanos[0], nanos[2]);
            added("local", nanos[1], nanos[2]);
        }
    }

    private static URI target(Gateway gateway) {
        return URI.create("http://127.0.0.1:" + gateway.port() + "/v1/things");
    }

    private static void added(String store, long[] limited, long[] plain) {
        System.out.printf(Locale.ROOT, "added by the limiter on %s: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, "
                + "p99.9 %.3f ms%n", store, (pct(limited, 50) - pct(plain, 50)) / 1e6,
                (pct(limited, 90) - pct(plain, 90)) / 1e6, (pct(limited, 99) - pct(plain, 99)) / 1e6,
                (pct(limited, 99.9) - pct(plain, 99.9)) / 1e6);
    }

    /** Each worker alternates between the targets; returns the sorted latencies per target. */
    private static long[][] run(URI[] targets, int workers, int requests, Map<Integer, Integer> statuses)
            throws Exception {
        int perWorker = requests / workers;
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        List<Future<long[][]>> results = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            int worker = w;
            results.add(pool.submit(() -> {
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                long[][] mine = new long[targets.length][perWorker];
                for (int i = 0; i < perWorker; i++) {
                    String key = "bench-key-" + ((worker * perWorker + i) % KEYS);
                    for (int t = 0; t < targets.length; t++) {
                        // Start with the other target every other round, so neither always goes first.
                        int target = (t + i) % targets.length;
                        HttpRequest request = HttpRequest.newBuilder(targets[target]).header("X-Api-Key", key).build();
                        long start = System.nanoTime();
                        HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
                        mine[target][i] = System.nanoTime() - start;
                        if (statuses != null) {
                            synchronized (statuses) {
                                statuses.merge(response.statusCode(), 1, Integer::sum);
                            }
                        }
                    }
                }
                return mine;
            }));
        }
        long[][] all = new long[targets.length][perWorker * workers];
        for (int w = 0; w < workers; w++) {
            long[][] mine = results.get(w).get();
            for (int t = 0; t < targets.length; t++) {
                System.arraycopy(mine[t], 0, all[t], w * perWorker, perWorker);
            }
        }
        pool.shutdown();
        for (long[] latencies : all) {
            Arrays.sort(latencies);
        }
        return all;
    }

    private static double pct(long[] sorted, double percentile) {
        int index = (int) Math.ceil(percentile / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static void print(String what, long[] sorted) {
        System.out.printf(Locale.ROOT, "%-24s n=%d p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms%n",
                what, sorted.length, pct(sorted, 50) / 1e6, pct(sorted, 90) / 1e6, pct(sorted, 99) / 1e6,
                pct(sorted, 99.9) / 1e6, sorted[sorted.length - 1] / 1e6);
    }

    private static void flood(RedisFixture redis, DemoUpstream upstream, Path dir, int workers, int requests,
                              String store) throws Exception {
        Path config = config(dir, store, redis.uri());
        try (Gateway gateway = gateway(config, upstream, true)) {
            URI target = target(gateway);
            // Known keys first, so that the store and the JIT are warm and only the flood differs; their
            // per-day state stays in Redis, so its key count shows what the flood adds.
            run(new URI[] {target}, workers, 20_000, null);
            long keysBefore = redisKeys(redis);
            long heapBefore = heapAfterGc();
            Map<Integer, Integer> statuses = new TreeMap<>();
            AtomicInteger sent = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(workers);
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                done.add(pool.submit(() -> {
                    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                    while (sent.incrementAndGet() <= requests) {
                        HttpRequest request = HttpRequest.newBuilder(target)
                                .header("X-Api-Key", UUID.randomUUID().toString()).build();
                        int status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                        synchronized (statuses) {
                            statuses.merge(status, 1, Integer::sum);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
            pool.shutdown();
            long heapAfter = heapAfterGc();
            long keysAfter = redisKeys(redis);
            System.out.printf(Locale.ROOT, "flood on %s: %d distinct invented keys, statuses %s; heap after full GC "
                    + "%.1f MiB before, %.1f MiB after (%+.1f MiB); redis keys %d before, %d after%n", store, requests,
                    statuses, heapBefore / 1048576.0, heapAfter / 1048576.0, (heapAfter - heapBefore) / 1048576.0,
                    keysBefore, keysAfter);
        }
    }

    private static long redisKeys(RedisFixture redis) {
        return Long.parseLong(String.valueOf(redis.command(0, "DBSIZE")));
    }

    private static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
