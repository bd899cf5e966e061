package io.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.testkit.redis.RedisFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Measures what docs/stores/redis.md reports: bytes per key of each algorithm
 * ({@code MEMORY USAGE}) and the latency of one decision from one thread on loopback.
 * Nothing here asserts on time; the figures go to the log and to
 * {@code target/redis-figures.md}.
 */
class RedisStoreFiguresIT {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.standalone();

    private static final int WARM_UP = 5_000;
    private static final int ROUNDS = 5;
    private static final int PER_ROUND = 4_000;

    private final StringBuilder report = new StringBuilder();

    @Test
    void measure() throws IOException {
        line("Redis " + redis.version() + ", " + System.getProperty("java.vm.name") + " "
                + System.getProperty("java.version") + ", " + Runtime.getRuntime().availableProcessors() + " CPUs");
        try (Store store = RedisStore.standalone(RedisURI.create(redis.uri())).commandTimeout(Duration.ofSeconds(1))
                .build()) {
            memory(store);
            latency(store);
        }
        Path file = Path.of("target", "redis-figures.md");
        Files.writeString(file, report);
        System.out.println(report);
    }

    private void memory(Store store) {
        line("");
        line("| algorithm | state | MEMORY USAGE (bytes) |");
        line("| --- | --- | --- |");
        for (Algorithm algorithm : Algorithms.all()) {
            // Per hour, so that no key expires (on Redis time) before it is measured on a loaded machine.
            Limit limit = Limit.of(algorithm, 100, Duration.ofHours(1)).named("per-hour");
            store.tryAcquire("memory-" + algorithm.name(), List.of(limit), 1).toCompletableFuture().join();
            line("| " + algorithm.name() + " | after 1 request | " + memory("memory-" + algorithm.name(), limit) + " |");
            if (algorithm == Algorithms.SLIDING_LOG) {
                Limit log = Limit.of(algorithm, 100, Duration.ofMinutes(1)).named("per-minute");
                String full = "memory-full-log";
                for (int i = 0; i < 100; i++) {
                    store.tryAcquire(full, List.of(log), 1).toCompletableFuture().join();
                }
                line("| " + algorithm.name() + " | 100 requests in the window | " + memory(full, log) + " |");
            }
        }
    }

    /** The client's key, and for a sliding log its list too: "key" or "key + list = total". */
    private String memory(String client, Limit limit) {
        long key = (Long) redis.command(0, "MEMORY", "USAGE", RedisKeys.key(client), "SAMPLES", "0");
        if (limit.algorithm() != Algorithms.SLIDING_LOG) {
            return Long.toString(key);
        }
        long list = (Long) redis.command(0, "MEMORY", "USAGE",
                RedisKeys.logKey(RedisKeys.key(client), limit.name()), "SAMPLES", "0");
        return key + " + " + list + " (list) = " + (key + list);
    }

    private void latency(Store store) {
        List<Limit> one = List.of(Limit.of(Algorithms.TOKEN_BUCKET, 1_000_000_000, Duration.ofSeconds(1))
                .named("per-second"));
        List<Limit> three = List.of(one.get(0),
                Limit.of(Algorithms.FIXED_WINDOW, 1_000_000_000, Duration.ofDays(1)).named("per-day"),
                Limit.of(Algorithms.GCRA, 1_000_000_000, Duration.ofMinutes(1)).named("endpoint"));
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            Map<String, LongSupplier> calls = new LinkedHashMap<>();
            calls.put("PING (Lettuce sync), for reference", () -> {
                connection.sync().ping();
                return 0;
            });
            for (Algorithm algorithm : Algorithms.all()) {
                // A sliding log keeps every admitted request of the period, so its cost grows with
                // the limit: measured with a full log of 10 and of 100 entries.
                for (long permits : algorithm == Algorithms.SLIDING_LOG ? new long[] {10, 100}
                        : new long[] {1_000_000_000}) {
                    List<Limit> limits = List.of(Limit.of(algorithm, permits, Duration.ofSeconds(1))
                            .named("per-second-" + permits));
                    calls.put("decision, " + algorithm.name() + " " + permits + "/s", () -> decide(store, limits));
                }
            }
            calls.put("decision, token-bucket + fixed-window + gcra", () -> decide(store, three));
            calls.put("decision, token-bucket, 100 clients in turn", new LongSupplier() {
                private int client;

                @Override
                public long getAsLong() {
                    client = (client + 1) % 100;
                    return store.tryAcquire("client-" + client, one, 1).toCompletableFuture().join().remaining();
                }
            });

            calls.values().forEach(call -> repeat(call, WARM_UP));
            // Round after round, every call in turn, so that the machine's other work spreads
            // evenly over the rows rather than spoiling one.
            Map<String, long[]> nanos = new LinkedHashMap<>();
            calls.keySet().forEach(what -> nanos.put(what, new long[ROUNDS * PER_ROUND]));
            for (int round = 0; round < ROUNDS; round++) {
                for (Map.Entry<String, LongSupplier> call : calls.entrySet()) {
                    long[] samples = nanos.get(call.getKey());
                    for (int i = round * PER_ROUND; i < (round + 1) * PER_ROUND; i++) {
                        long start = System.nanoTime();
                        call.getValue().getAsLong();
                        samples[i] = System.nanoTime() - start;
                    }
                }
            }

            line("");
            line("| one thread, loopback, " + ROUNDS * PER_ROUND + " calls each after " + WARM_UP
                    + " to warm up | p50 (us) | p99 (us) | p99.9 (us) | max (us) | commands per call | in Redis per call (us) |");
            line("| --- | --- | --- | --- | --- | --- | --- |");
            for (Map.Entry<String, LongSupplier> call : calls.entrySet()) {
                long[] samples = nanos.get(call.getKey());
                Arrays.sort(samples);
                line("| " + call.getKey() + " | " + micros(samples, 0.50) + " | " + micros(samples, 0.99) + " | "
                        + micros(samples, 0.999) + " | " + micros(samples, 1.0) + " | " + serverSide(call.getValue())
                        + " |");
            }
        } finally {
            client.shutdown();
        }
    }

    private static long decide(Store store, List<Limit> limits) {
        long remaining = store.tryAcquire("latency", limits, 1).toCompletableFuture().join().remaining();
        assertThat(remaining).isNotNegative();
        return remaining;
    }

    private static void repeat(LongSupplier call, int times) {
        for (int i = 0; i < times; i++) {
            call.getAsLong();
        }
    }

    /**
     * Commands per call that the client sent (a script's own GET and SET are counted apart) and
     * the server's time for them, free of the client's scheduling, from {@code INFO commandstats}.
     */
    private static String serverSide(LongSupplier call) {
        redis.command(0, "CONFIG", "RESETSTAT");
        repeat(call, PER_ROUND);
        String stats = (String) redis.command(0, "INFO", "commandstats");
        long commands = 0;
        double usec = 0;
        Matcher matcher = Pattern.compile("cmdstat_(\\w+):calls=(\\d+),usec=(\\d+)").matcher(stats);
        while (matcher.find()) {
            if (List.of("ping", "evalsha", "eval", "script", "fcall", "function").contains(matcher.group(1))) {
                commands += Long.parseLong(matcher.group(2));
                usec += Long.parseLong(matcher.group(3));
            }
        }
        return String.format(Locale.ROOT, "%.2f", commands / (double) PER_ROUND) + " | "
                + String.format(Locale.ROOT, "%.1f", usec / PER_ROUND);
    }

    private static String micros(long[] sorted, double quantile) {
        int index = Math.min(sorted.length - 1, (int) Math.ceil(quantile * sorted.length) - 1);
        return String.format(Locale.ROOT, "%.0f", sorted[index] / 1_000.0);
    }

    private void line(String text) {
        report.append(text).append('\n');
    }
}
