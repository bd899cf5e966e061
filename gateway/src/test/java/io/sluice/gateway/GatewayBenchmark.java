package io.sluice.gateway;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.store.redis.RedisStore;
import io.sluice.testkit.ThreadTimes;
import io.sluice.testkit.redis.RedisFixture;
import java.lang.management.CompilationMXBean;
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
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;

/**
 * Not a test: the measurements behind docs/benchmarks.md's gateway section, run by
 * {@code gateway/bench.sh}. Everything runs on this machine: a redis-server (the testkit
 * fixture), the demo upstream, the gateways, and a closed-loop load generator (java.net.http).
 * In every latency mode the same workers send each of their rounds to every probe in turn
 * (starting with a different one each round), so all probes see the same machine; the
 * difference of percentiles against the proxy without the limiter is what the limiter adds.
 *
 * <ul>
 *   <li>{@code latency}: proxies limiting on Redis and on the local store, the same proxy not
 *       limiting, and two floors on the same redis-server, measured by the same workers: a
 *       bare Lettuce {@code PING} and the Redis store's own decision (the {@code EVALSHA} a
 *       gateway sends, without guard or HTTP).</li>
 *   <li>{@code blockcache}: clients over their limit (one request a day, already spent): every
 *       request a 429 from the store guard's block cache of a gateway on Redis, against the
 *       proxy without the limiter forwarding the same request, and against the same server
 *       answering a fixed 429 of the same size without deciding (the limiter's own work is
 *       the difference).</li>
 *   <li>{@code hazelcast}: a proxy limiting on Hazelcast as a member of a cluster of two (the
 *       other member in this JVM, owning about half of the keys), the proxy on the local store,
 *       and the proxy not limiting.</li>
 *   <li>{@code hazelcast-client}: the same, the proxy limiting on Hazelcast as a client (the
 *       gateway's default {@code mode}) of a cluster of one member in this JVM, which owns
 *       every key.</li>
 *   <li>{@code leasing}: a gateway on Redis with local quota leasing, one leasing with refill
 *       ahead (the next batch taken in the background), one without leasing, and the proxy
 *       without the limiter; 10 busy keys, so that admitted requests are served from
 *       leases.</li>
 *   <li>{@code flood}: 100,000 requests with distinct invented API keys; the heap after a full GC
 *       and Redis's key count before and after show whether state was created for them.</li>
 * </ul>
 */
public final class GatewayBenchmark {

    private static final int KEYS = 1_000;
    /** Warm-up rounds after the first, at most, while the JIT is still compiling. */
    private static final int EXTRA_WARM_UP_ROUNDS = 8;
    /** A round in which the JIT's compiler threads ran this share of its time or less is quiet. */
    private static final double JIT_QUIET_SHARE = 0.01;
    private static final String JIT_GROUP = "JIT compilers";
    /** The load generator's worker threads' name. */
    private static final String LOAD_THREAD = "load-";
    /** Keys of the leasing mode: few enough that each is busy enough to be leased. */
    private static final int LEASED_KEYS = 10;
    private static final String TIER = """
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
            """;
    /**
     * A lease lasts at most the shortest period (a minute here), and never past the end of a
     * fixed window; fixed windows, since a token bucket's lease ends when the bucket would be
     * full again: microseconds for a bucket this far from empty, so that every request would
     * lease anew.
     */
    private static final String LEASED_TIER = """
            tiers:
              - name: bench
                limits:
                  - name: per-minute
                    algorithm: fixed-window
                    permits: 60_000_000
                    period: 1m
                  - name: per-day
                    algorithm: fixed-window
                    permits: 1_000_000_000
                    period: 1d
            """;
    /** One request a day: once it is spent, the store's denial holds for the rest of the day. */
    private static final String SPENT_TIER = """
            tiers:
              - name: bench
                limits:
                  - name: per-day
                    algorithm: fixed-window
                    permits: 1
                    period: 1d
            """;

    private GatewayBenchmark() {
    }

    /** One thing the workers time: an HTTP request to a proxy, or a call to Redis. */
    private interface Probe {

        /** Sends one request for {@code key} and answers its HTTP status (0 for Redis). */
        int call(HttpClient client, String key) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "latency";
        int workers = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int requests = args.length > 2 ? Integer.parseInt(args[2]) : (mode.equals("flood") ? 100_000 : 20_000);
        System.out.printf("gateway benchmark %s, %d workers, %d requests, %s, load average before: %s%n", mode,
                workers, requests, Runtime.version(), loadAverage());
        int exitStatus = 0;
        try (RedisFixture redis = RedisFixture.standalone().start(); DemoUpstream upstream = DemoUpstream.start()) {
            Path dir = Files.createTempDirectory("sluice-bench");
            switch (mode) {
                case "flood" -> {
                    flood(redis, upstream, dir, workers, requests, "redis");
                    flood(redis, upstream, dir, workers, requests, "local");
                }
                case "latency" -> latency(redis, upstream, dir, workers, requests);
                case "blockcache" -> blockCache(redis, upstream, dir, workers, requests);
                case "leasing" -> leasing(redis, upstream, dir, workers, requests);
                case "hazelcast" -> hazelcast(redis, upstream, dir, workers, requests, "member");
                case "hazelcast-client" -> hazelcast(redis, upstream, dir, workers, requests, "client");
                default -> throw new IllegalArgumentException("mode must be latency, blockcache, leasing, hazelcast, "
                        + "hazelcast-client or flood: " + mode);
            }
        } catch (Exception e) {
            // The servers' threads would keep the JVM alive.
            e.printStackTrace();
            exitStatus = 1;
        }
        System.out.printf("load average after: %s%n", loadAverage());
        System.exit(exitStatus);
    }

    private static Path config(Path dir, String name, String store, String redisUri, String tier, int keys)
            throws Exception {
        return config(dir, name, store.equals("redis") ? """
                store:
                  type: redis
                  uri: %s
                  timeout: 50ms
                """.formatted(redisUri) : "store:\n  type: local\n", tier, keys);
    }

    /** A policy file of {@code keys} API keys of {@code tier}, on the store of {@code storeSection}. */
    private static Path config(Path dir, String name, String storeSection, String tier, int keys) throws Exception {
        StringBuilder yaml = new StringBuilder(storeSection);
        yaml.append(tier).append("""
                api-keys:
                  unknown: reject
                  keys:
                """);
        for (int i = 0; i < keys; i++) {
            yaml.append("    - key: \"bench-key-").append(i).append("\"\n      tier: bench\n");
        }
        Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, yaml, StandardCharsets.UTF_8);
        return file;
    }

    private static Path config(Path dir, String store, String redisUri) throws Exception {
        return config(dir, store, store, redisUri, TIER, KEYS);
    }

    private static Gateway gateway(Path config, DemoUpstream upstream, boolean limiting) {
        return Gateway.start(settings(config, upstream, limiting));
    }

    private static Gateway.Settings settings(Path config, DemoUpstream upstream, boolean limiting) {
        return new Gateway.Settings(config, upstream.uri(), "127.0.0.1", 0, "127.0.0.1", 0, Duration.ofSeconds(5),
                limiting);
    }

    private static void latency(RedisFixture redis, DemoUpstream upstream, Path dir, int workers, int requests)
            throws Exception {
        RedisClient client = RedisClient.create(redis.uri());
        try (Gateway onRedis = gateway(config(dir, "redis", redis.uri()), upstream, true);
             Gateway onLocal = gateway(config(dir, "local", redis.uri()), upstream, true);
             Gateway plain = gateway(config(dir, "local", redis.uri()), upstream, false);
             StatefulRedisConnection<String, String> connection = client.connect();
             Store store = RedisStore.standalone(RedisURI.create(redis.uri())).commandTimeout(Duration.ofSeconds(1))
                     .build()) {
            RedisAsyncCommands<String, String> commands = connection.async();
            List<Limit> limits = List.of(Limit.of(Algorithms.TOKEN_BUCKET, 1_000_000, Duration.ofSeconds(1))
                    .named("per-second"), Limit.of(Algorithms.FIXED_WINDOW, 1_000_000_000, Duration.ofDays(1))
                    .named("per-day"));
            // The floors wait as long as it takes (1 s): they time Redis, not a timeout.
            Map<String, Probe> probes = new LinkedHashMap<>();
            probes.put("limiting on redis", http(onRedis));
            probes.put("limiting on local", http(onLocal));
            probes.put("not limiting", http(plain));
            probes.put("redis PING (Lettuce)", (http, key) -> {
                commands.ping().get();
                return 0;
            });
            probes.put("redis store decision", (http, key) -> {
                store.tryAcquire("floor-" + key, limits, 1).toCompletableFuture().get();
                return 0;
            });
            redis.command(0, "CONFIG", "RESETSTAT");
            try (Load load = new Load(workers); Recording timings = new Recording()) {
                timings.enable(DecisionTiming.NAME);
                Map<String, long[]> nanos = measure(probes, load, workers, requests, KEYS, redis, timings);
                added(nanos, "not limiting", "limiting on redis", "limiting on local");
                slowestDecisions(timings);
                wakeUps(probes, load, requests / 4, redis);
            }
            // The Redis gateway's own time from a request's arrival to its verdict, on a Jetty thread
            // again (the store's round trip and the hand-back included, the forwarding not).
            System.out.println(storeCalls(onRedis));
            // Counts, not times: what Redis ran for the gateway's and the floor's decisions (warm-up included).
            System.out.println("redis commandstats: " + redis.command(0, "INFO", "commandstats"));
        } finally {
            client.shutdown();
        }
    }

    /**
     * A proxy limiting on Hazelcast, in the gateway's {@code gridMode}, with a member started here
     * (in this JVM too): as a {@code member}, in a cluster of two where that member owns about half
     * of the keys; as a {@code client}, of that one member, which owns them all. The path of
     * {@code decideAsync} on a grid, against the same proxy on the local store and not limiting.
     */
    private static void hazelcast(RedisFixture redis, DemoUpstream upstream, Path dir, int workers, int requests,
                                  String gridMode) throws Exception {
        try (HazelcastTestMember owner = HazelcastTestMember.start("sluice-bench-")) {
            Path onGrid = config(dir, "hazelcast", owner.storeSection(gridMode, "50ms"), TIER, KEYS);
            try (Gateway onHazelcast = gateway(onGrid, upstream, true);
                 Gateway onLocal = gateway(config(dir, "local", redis.uri()), upstream, true);
                 Gateway plain = gateway(config(dir, "local", redis.uri()), upstream, false)) {
                Map<String, Probe> probes = new LinkedHashMap<>();
                probes.put("limiting on hazelcast", http(onHazelcast));
                probes.put("limiting on local", http(onLocal));
                probes.put("not limiting", http(plain));
                Map<String, long[]> nanos = measure(probes, workers, requests, KEYS, redis);
                added(nanos, "not limiting", "limiting on hazelcast", "limiting on local");
                System.out.println(storeCalls(onHazelcast));
            }
        }
    }

    private static void blockCache(RedisFixture redis, DemoUpstream upstream, Path dir, int workers, int requests)
            throws Exception {
        Server answering = null;
        try (Gateway onRedis = gateway(config(dir, "spent", "redis", redis.uri(), SPENT_TIER, KEYS), upstream, true);
             Gateway plain = gateway(config(dir, "local", redis.uri()), upstream, false)) {
            // Each key's one request of the day, then one denial by Redis: the denial the block cache keeps.
            try (Load load = new Load(1)) {
                load.run(List.of(http(onRedis)), 2 * KEYS, KEYS, null);
            }
            HttpResponse<String> denial = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + onRedis.port() + "/v1/things")).header("X-Api-Key", "bench-key-0").build(),
                    HttpResponse.BodyHandlers.ofString());
            System.out.printf("the gateway's 429, copied by the peer: %s %s%n", denial.headers().map(), denial.body());
            answering = fixed429(denial);
            Map<String, Probe> probes = new LinkedHashMap<>();
            probes.put("429 from the block cache", http(onRedis));
            probes.put("not limiting", http(plain));
            probes.put("same server, fixed 429", http(URI.create("http://127.0.0.1:" + ((ServerConnector) answering.getConnectors()[0]).getLocalPort())));
            Map<String, long[]> nanos = measure(probes, workers, requests, KEYS, redis);
            added(nanos, "not limiting", "429 from the block cache");
            added(nanos, "same server, fixed 429", "429 from the block cache");
            System.out.println(storeCalls(onRedis));
        } finally {
            if (answering != null) {
                answering.stop();
            }
        }
    }

    /**
     * The fair peer of a 429 the gateway writes itself: a server set up as the gateway's proxy
     * (Jetty's defaults, the graceful handler, a handler that may block as the proxy's does)
     * whose handler answers every request with a copy of one of the gateway's 429s (its
     * rate-limit fields and problem body) at once, deciding nothing.
     */
    private static Server fixed429(HttpResponse<String> denial) throws Exception {
        List<Map.Entry<String, String>> fields = new ArrayList<>();
        denial.headers().map().forEach((name, values) -> {
            if (!List.of("content-length", "date", "server", "connection", "content-type").contains(name.toLowerCase(
                    Locale.ROOT))) {
                values.forEach(value -> fields.add(Map.entry(name, value)));
            }
        });
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(new GracefulHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                response.setStatus(429);
                fields.forEach(field -> response.getHeaders().add(field.getKey(), field.getValue()));
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/problem+json");
                response.write(true, BufferUtil.toBuffer(denial.body(), StandardCharsets.UTF_8), callback);
                return true;
            }
        }));
        server.start();
        return server;
    }

    private static void leasing(RedisFixture redis, DemoUpstream upstream, Path dir, int workers, int requests)
            throws Exception {
        Path leased = config(dir, "leased", "redis", redis.uri(), LEASED_TIER, LEASED_KEYS);
        // The same policy with the policy file's leasing section (its defaults: 10% of the limit).
        Path withLeasing = config(dir, "with-leasing", "redis", redis.uri(), "leasing: {}\n" + LEASED_TIER, LEASED_KEYS);
        // And with the next lease taken in the background before the current one is spent.
        Path leasingAhead = config(dir, "leasing-ahead", "redis", redis.uri(), "leasing: {refill-ahead: true}\n"
                + LEASED_TIER, LEASED_KEYS);
        try (Gateway withLeases = gateway(withLeasing, upstream, true);
             Gateway withLeasesAhead = gateway(leasingAhead, upstream, true);
             Gateway onRedis = gateway(leased, upstream, true);
             Gateway plain = gateway(config(dir, "local", redis.uri()), upstream, false)) {
            Map<String, Probe> probes = new LinkedHashMap<>();
            probes.put("leasing on redis", http(withLeases));
            probes.put("leasing ahead on redis", http(withLeasesAhead));
            probes.put("limiting on redis", http(onRedis));
            probes.put("not limiting", http(plain));
            Map<String, long[]> nanos = measure(probes, workers, requests, LEASED_KEYS, redis);
            added(nanos, "not limiting", "leasing on redis", "leasing ahead on redis", "limiting on redis");
            System.out.println("leasing: " + storeCalls(withLeases));
            System.out.println("leasing ahead: " + storeCalls(withLeasesAhead));
        }
    }

    private static Probe http(Gateway gateway) {
        return http(URI.create("http://127.0.0.1:" + gateway.port()));
    }

    private static Probe http(URI server) {
        URI target = server.resolve("/v1/things");
        return (client, key) -> client.send(HttpRequest.newBuilder(target).header("X-Api-Key", key).build(),
                HttpResponse.BodyHandlers.ofByteArray()).statusCode();
    }

    /**
     * Warms up, then measures and prints every probe's percentiles, with where the threads'
     * time went during the measured run ({@link ThreadTimes}): who ran, and how long they waited
     * for a CPU. The warm-up is half as many requests, then up to {@link #EXTRA_WARM_UP_ROUNDS}
     * rounds of a tenth as many, until one passes in which the JIT's compiler threads ran on a
     * CPU for at most {@link #JIT_QUIET_SHARE} of the round's time: compiling during the measured
     * run takes a core from the two the probes share and puts that into the tail being measured.
     * Their CPU time (schedstat) is the measure, not {@link CompilationMXBean}'s compilation time,
     * which is wall-clock time and grows with every wait for a CPU on a loaded machine.
     */
    private static Map<String, long[]> measure(Map<String, Probe> probes, int workers, int requests, int keys,
                                               RedisFixture redis) throws Exception {
        try (Load load = new Load(workers)) {
            return measure(probes, load, workers, requests, keys, redis, null);
        }
    }

    /** As above, with the workers of {@code load}; {@code recording}, when given, records the measured run only. */
    private static Map<String, long[]> measure(Map<String, Probe> probes, Load load, int workers, int requests,
                                               int keys, RedisFixture redis, @Nullable Recording recording)
            throws Exception {
        List<Probe> list = new ArrayList<>(probes.values());
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long jitBefore = jit.getTotalCompilationTime();
        long compilersBefore = compilersRunNanos();
        long warmUpStart = System.nanoTime();
        load.run(list, requests / 2, keys, null);   // warm-up: JIT, connections, scripts loaded
        System.out.printf(Locale.ROOT, "warm-up: %d requests per probe in %.1f s, JIT %d ms, compiler threads ran "
                        + "%.0f ms%n", requests / 2, (System.nanoTime() - warmUpStart) / 1e9,
                jit.getTotalCompilationTime() - jitBefore, (compilersRunNanos() - compilersBefore) / 1e6);
        int round = Math.max(workers, requests / 10);
        for (int extra = 1; extra <= EXTRA_WARM_UP_ROUNDS; extra++) {
            long before = jit.getTotalCompilationTime();
            long compilers = compilersRunNanos();
            long start = System.nanoTime();
            load.run(list, round, keys, null);
            long wall = System.nanoTime() - start;
            long compiled = compilersRunNanos() - compilers;
            boolean quiet = compiled <= JIT_QUIET_SHARE * wall;
            System.out.printf(Locale.ROOT, "warm-up round %d: %d requests per probe in %.1f s, JIT %d ms, compiler "
                            + "threads ran %.0f ms (%.1f%%)%s%n", extra, round, wall / 1e9,
                    jit.getTotalCompilationTime() - before, compiled / 1e6, 100.0 * compiled / wall,
                    quiet ? " (quiet)" : "");
            if (quiet) {
                break;
            }
        }
        Map<Integer, Integer> statuses = new TreeMap<>();
        List<Long> redisPids = redis.pids();
        Map<Long, ThreadTimes.Sample> jvmBefore = ThreadTimes.snapshot(ProcessHandle.current().pid());
        List<Map<Long, ThreadTimes.Sample>> redisBefore = redisPids.stream().map(ThreadTimes::snapshot).toList();
        ThreadTimes.Cpu cpuBefore = ThreadTimes.machine();
        long jitAtStart = jit.getTotalCompilationTime();
        if (recording != null) {
            recording.start();
        }
        long start = System.nanoTime();
        long[][] nanos = load.run(list, requests, keys, statuses);
        long wall = System.nanoTime() - start;
        if (recording != null) {
            recording.stop();
        }
        long jitDuring = jit.getTotalCompilationTime() - jitAtStart;
        ThreadTimes.Cpu cpu = ThreadTimes.machine().minus(cpuBefore);
        Map<String, ThreadTimes.Times> groups = new TreeMap<>(ThreadTimes.between(jvmBefore,
                ThreadTimes.snapshot(ProcessHandle.current().pid()), GatewayBenchmark::threadGroup));
        for (int i = 0; i < redisPids.size(); i++) {
            groups.merge("redis-server (process)", ThreadTimes.between(redisBefore.get(i),
                    ThreadTimes.snapshot(redisPids.get(i)), name -> "redis-server (process)")
                    .getOrDefault("redis-server (process)", ThreadTimes.Times.ZERO), ThreadTimes.Times::plus);
        }
        System.out.printf("HTTP statuses: %s; load average: %s%n", statuses, loadAverage());
        Map<String, long[]> byName = new LinkedHashMap<>();
        int i = 0;
        for (String name : probes.keySet()) {
            byName.put(name, nanos[i++]);
            print(name, byName.get(name));
        }
        long calls = (long) nanos[0].length * probes.size();
        long ours = groups.values().stream().mapToLong(ThreadTimes.Times::runNanos).sum();
        // /proc/stat counts in clock ticks of 10 ms (USER_HZ 100).
        long busy = cpu.busyTicks() * 10_000_000L;
        long compiled = groups.getOrDefault(JIT_GROUP, ThreadTimes.Times.ZERO).runNanos();
        System.out.printf(Locale.ROOT, "the measured run: %.2f s, %d calls timed, JIT %d ms, compiler threads ran %.0f ms "
                        + "(%.1f%%%s); the machine's %d cores %.0f%% busy (%.1f of %.1f core-seconds), other processes "
                        + "ran %.1f s%n", wall / 1e9, calls, jitDuring, compiled / 1e6, 100.0 * compiled / wall,
                compiled <= JIT_QUIET_SHARE * wall ? ", quiet" : ", NOT quiet",
                Runtime.getRuntime().availableProcessors(), 100.0 * cpu.busyTicks() / Math.max(1, cpu.allTicks()),
                busy / 1e9, cpu.allTicks() / 100.0, Math.max(0, busy - ours) / 1e9);
        System.out.println("threads' time during the measured run (schedstat: run on a CPU, waited for one):");
        describe(groups, calls).forEach(System.out::println);
        return byName;
    }

    /**
     * Where the time of the Redis gateway's requests went before the forwarding
     * ({@link DecisionTiming}, recorded during the measured run): each part's median, and the
     * mean parts of the slowest 1% (by the four parts' sum), with how many of them were
     * handed back to the server's threads.
     */
    private static void slowestDecisions(Recording recording) throws Exception {
        Path file = Files.createTempFile("sluice-decisions", ".jfr");
        try {
            recording.dump(file);
            List<long[]> rows = new ArrayList<>();
            for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
                if (event.getEventType().getName().equals(DecisionTiming.NAME)) {
                    rows.add(new long[] {event.getDuration("decideCall").toNanos(), event.getDuration("store").toNanos(),
                            event.getDuration("handOff").toNanos(), event.getDuration("respond").toNanos(),
                            event.getBoolean("handedOff") ? 1 : 0});
                }
            }
            if (rows.isEmpty()) {
                System.out.println("no decision timings recorded");
                return;
            }
            rows.sort(Comparator.comparingLong(row -> row[0] + row[1] + row[2] + row[3]));
            long handedOff = rows.stream().filter(row -> row[4] == 1).count();
            System.out.printf(Locale.ROOT, "the Redis gateway's decisions from the store (JFR %s, %d requests, %d handed "
                    + "back to the server's threads), in ms: decide call / store / hand-off / respond and forward%n",
                    DecisionTiming.NAME, rows.size(), handedOff);
            double[] medians = new double[4];
            for (int i = 0; i < 4; i++) {
                int part = i;
                long[] sorted = rows.stream().mapToLong(row -> row[part]).sorted().toArray();
                medians[i] = sorted[sorted.length / 2] / 1e6;
            }
            System.out.printf(Locale.ROOT, "  each part's median: %.3f / %.3f / %.3f / %.3f%n", medians[0], medians[1],
                    medians[2], medians[3]);
            List<long[]> slowest = rows.subList(rows.size() - Math.max(1, rows.size() / 100), rows.size());
            double[] mean = new double[4];
            for (long[] row : slowest) {
                for (int i = 0; i < 4; i++) {
                    mean[i] += row[i] / 1e6 / slowest.size();
                }
            }
            System.out.printf(Locale.ROOT, "  the slowest 1%% (%d, from %.3f ms), mean: %.3f / %.3f / %.3f / %.3f; "
                            + "handed back: %d%n", slowest.size(), Arrays.stream(slowest.get(0)).limit(4).sum() / 1e6,
                    mean[0], mean[1], mean[2], mean[3], slowest.stream().filter(row -> row[4] == 1).count());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * The thread wake-ups of one request to each probe alone: the probe's requests on their
     * own (the same workers), and the context switches of this JVM's threads and
     * {@code redis-server}'s in between, per request and thread group. A voluntary switch is a
     * thread that blocked and was woken again: a hand-off between threads, which on a busy
     * machine costs a wait for a CPU. It does not depend on the CPU's speed or load, so the
     * difference between the proxy with and without the limiter is the limiter's hand-offs
     * (the involuntary switches, preemptions, depend on the load).
     */
    private static void wakeUps(Map<String, Probe> probes, Load load, int requests, RedisFixture redis)
            throws Exception {
        System.out.printf(Locale.ROOT, "context switches per request, each probe alone (%d requests each; "
                + "voluntary: a thread woken, involuntary: preempted):%n", requests);
        long pid = ProcessHandle.current().pid();
        List<Long> redisPids = redis.pids();
        for (Map.Entry<String, Probe> probe : probes.entrySet()) {
            Map<Long, ThreadTimes.Sample> jvmBefore = ThreadTimes.snapshot(pid);
            List<Map<Long, ThreadTimes.Sample>> redisBefore = redisPids.stream().map(ThreadTimes::snapshot).toList();
            load.run(List.of(probe.getValue()), requests, KEYS, null);
            Map<String, ThreadTimes.Times> groups = new TreeMap<>(ThreadTimes.between(jvmBefore,
                    ThreadTimes.snapshot(pid), GatewayBenchmark::threadGroup));
            for (int i = 0; i < redisPids.size(); i++) {
                groups.merge("redis-server (process)", ThreadTimes.between(redisBefore.get(i),
                        ThreadTimes.snapshot(redisPids.get(i)), name -> "redis-server (process)")
                        .getOrDefault("redis-server (process)", ThreadTimes.Times.ZERO), ThreadTimes.Times::plus);
            }
            ThreadTimes.Times all = groups.values().stream().reduce(ThreadTimes.Times.ZERO, ThreadTimes.Times::plus);
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "  %-24s voluntary %5.2f, involuntary %5.2f:", probe.getKey(),
                    (double) all.voluntarySwitches() / requests, (double) all.involuntarySwitches() / requests));
            groups.forEach((group, times) -> {
                if (times.switches() >= requests / 100) {
                    line.append(String.format(Locale.ROOT, " %s %.2f/%.2f;", group,
                            (double) times.voluntarySwitches() / requests,
                            (double) times.involuntarySwitches() / requests));
                }
            });
            System.out.println(line);
        }
    }

    /**
     * One line per group: milliseconds run and waited in all, and per call of {@code calls}
     * (the calls the workers timed), with the wait-to-run ratio.
     */
    private static List<String> describe(Map<String, ThreadTimes.Times> groups, long calls) {
        List<String> lines = new ArrayList<>();
        ThreadTimes.Times total = ThreadTimes.Times.ZERO;
        for (Map.Entry<String, ThreadTimes.Times> group : groups.entrySet()) {
            lines.add(describe(group.getKey(), group.getValue(), calls));
            total = total.plus(group.getValue());
        }
        lines.add(describe("all of the above", total, calls));
        return lines;
    }

    private static String describe(String name, ThreadTimes.Times times, long calls) {
        double perCall = Math.max(1, calls) * 1e6;
        return String.format(Locale.ROOT, "  %-28s run %9.1f ms, waited %9.1f ms (%.2fx); per call run %.3f ms, "
                        + "waited %.3f ms; %d slices", name, times.runNanos() / 1e6, times.waitNanos() / 1e6,
                times.runNanos() == 0 ? 0.0 : (double) times.waitNanos() / times.runNanos(),
                times.runNanos() / perCall, times.waitNanos() / perCall, times.slices());
    }

    /** CPU time the JIT's compiler threads have run (those still alive). */
    private static long compilersRunNanos() {
        return ThreadTimes.between(Map.of(), ThreadTimes.snapshot(ProcessHandle.current().pid()),
                GatewayBenchmark::threadGroup).getOrDefault(JIT_GROUP, ThreadTimes.Times.ZERO).runNanos();
    }

    /** The group a thread's name (its first 15 characters, as the kernel keeps it) belongs to. */
    static String threadGroup(String name) {
        if (name.startsWith(LOAD_THREAD) || name.startsWith("HttpClient-")) {
            return "load generator";
        } else if (name.startsWith("qtp") || name.startsWith("proxy-client") || name.startsWith("Scheduler-")) {
            return "Jetty (proxies, their clients)";
        } else if (name.startsWith("lettuce-")) {
            return "Lettuce";
        } else if (name.startsWith(DemoUpstream.THREADS)) {
            return "upstream";
        } else if (name.startsWith("ForkJoinPool")) {
            return "common pool";
        } else if (name.startsWith("sluice-")) {
            return "Sluice's own threads";
        } else if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
            return JIT_GROUP;
        } else if (name.startsWith("GC ") || name.startsWith("G1 ") || name.equals("VM Thread")) {
            return "GC and VM";
        }
        return "other JVM threads";
    }

    /** What each of {@code limited} adds to {@code baseline}, percentile by percentile. */
    private static void added(Map<String, long[]> nanos, String baseline, String... limited) {
        long[] plain = nanos.get(baseline);
        for (String name : limited) {
            long[] with = nanos.get(name);
            System.out.printf(Locale.ROOT, "%s against %s: p50 %+.3f ms, p90 %+.3f ms, p99 %+.3f ms, p99.9 %+.3f ms%n",
                    name, baseline, (pct(with, 50) - pct(plain, 50)) / 1e6, (pct(with, 90) - pct(plain, 90)) / 1e6,
                    (pct(with, 99) - pct(plain, 99)) / 1e6, (pct(with, 99.9) - pct(plain, 99.9)) / 1e6);
        }
    }

    /**
     * The gateway's store calls, lease and block-cache counts, and its decision time (the
     * histogram's buckets, count, sum and max), from its own /metrics.
     */
    private static String storeCalls(Gateway gateway) throws Exception {
        String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + gateway.adminPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        StringBuilder lines = new StringBuilder("the gateway's meters:");
        for (String line : metrics.split("\n")) {
            if (!line.startsWith("#") && (line.startsWith("sluice_store_latency_seconds_count")
                    || line.startsWith("sluice_lease") || line.startsWith("sluice_block_cache")
                    || line.startsWith("sluice_gateway_requests") || line.startsWith("sluice_gateway_decision"))) {
                lines.append("\n  ").append(line);
            }
        }
        return lines.toString();
    }

    /**
     * The closed-loop load generator: its worker threads and each worker's HTTP client live as
     * long as it does, so that the warm-up's rounds and the measured run share threads and
     * connections: a new client per round would open new connections (and start new threads,
     * whose code paths the JIT then compiles anew) inside the measured run.
     */
    private static final class Load implements AutoCloseable {

        private final ExecutorService pool;
        private final List<HttpClient> clients = new ArrayList<>();

        Load(int workers) {
            AtomicInteger threads = new AtomicInteger();
            pool = Executors.newFixedThreadPool(workers, task -> new Thread(task, LOAD_THREAD
                    + threads.incrementAndGet()));
            for (int w = 0; w < workers; w++) {
                clients.add(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
            }
        }

        /** Each worker calls every probe in turn; returns the sorted latencies per probe. */
        long[][] run(List<Probe> probes, int requests, int keys, Map<Integer, Integer> statuses) throws Exception {
            int workers = clients.size();
            int perWorker = requests / workers;
            List<Future<long[][]>> results = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                int worker = w;
                HttpClient client = clients.get(w);
                results.add(pool.submit(() -> {
                    long[][] mine = new long[probes.size()][perWorker];
                    for (int i = 0; i < perWorker; i++) {
                        String key = "bench-key-" + ((worker * perWorker + i) % keys);
                        for (int p = 0; p < probes.size(); p++) {
                            // Start with another probe every round, so that none always goes first.
                            int probe = (p + i) % probes.size();
                            long start = System.nanoTime();
                            int status = probes.get(probe).call(client, key);
                            mine[probe][i] = System.nanoTime() - start;
                            if (statuses != null && status != 0) {
                                synchronized (statuses) {
                                    statuses.merge(status, 1, Integer::sum);
                                }
                            }
                        }
                    }
                    return mine;
                }));
            }
            long[][] all = new long[probes.size()][perWorker * workers];
            for (int w = 0; w < workers; w++) {
                long[][] mine = results.get(w).get();
                for (int p = 0; p < probes.size(); p++) {
                    System.arraycopy(mine[p], 0, all[p], w * perWorker, perWorker);
                }
            }
            for (long[] latencies : all) {
                Arrays.sort(latencies);
            }
            return all;
        }

        @Override
        public void close() {
            pool.shutdown();
        }
    }

    private static double pct(long[] sorted, double percentile) {
        int index = (int) Math.ceil(percentile / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static void print(String what, long[] sorted) {
        System.out.printf(Locale.ROOT, "%-26s n=%d p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms%n",
                what, sorted.length, pct(sorted, 50) / 1e6, pct(sorted, 90) / 1e6, pct(sorted, 99) / 1e6,
                pct(sorted, 99.9) / 1e6, sorted[sorted.length - 1] / 1e6);
    }

    private static void flood(RedisFixture redis, DemoUpstream upstream, Path dir, int workers, int requests,
                              String store) throws Exception {
        Path config = config(dir, store, redis.uri());
        try (Gateway gateway = gateway(config, upstream, true)) {
            URI target = URI.create("http://127.0.0.1:" + gateway.port() + "/v1/things");
            // Known keys first, so that the store and the JIT are warm and only the flood differs; their
            // per-day state stays in Redis, so its key count shows what the flood adds.
            try (Load load = new Load(workers)) {
                load.run(List.of(http(gateway)), 20_000, KEYS, null);
            }
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
