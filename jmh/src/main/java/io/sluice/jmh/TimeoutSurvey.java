package io.sluice.jmh;

import io.lettuce.core.RedisURI;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.FailurePolicy;
import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.Store;
import io.sluice.core.StoreGuard;
import io.sluice.store.hazelcast.HazelcastStore;
import io.sluice.store.ignite.IgniteStore;
import io.sluice.store.redis.RedisStore;
import io.sluice.testkit.redis.RedisFixture;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The measurements behind {@link StoreGuard#DEFAULT_TIMEOUT} (docs/operations.md), re-runnable:
 *
 * <ol>
 *   <li><b>Survey.</b> Decisions on a hot key of a real {@code redis-server} (or, with
 *       {@code --store hazelcast|ignite}, a key owned by a member in another JVM of a two-member
 *       cluster the tool starts) from
 *       {@code --threads} threads (each pausing {@code --pause-micros} after a decision) for
 *       {@code --seconds}, with every timeout at 10 s so that nothing is cut, after a warm-up
 *       of a third as long. Prints the latency distribution and the fraction of decisions each
 *       candidate timeout (5, 10, 25, 50, 100, 250 ms) would have failed.</li>
 *   <li><b>Outage</b> (only on a server the tool started): the same load through the default
 *       guard (100 ms timeout, a {@link FailurePolicy#FALLBACK} limit), then the server is
 *       killed (SIGKILL, restarted on its port 2 s later) or stopped (SIGSTOP, SIGCONT 2 s
 *       later). Prints the slowest decision started after the failure, and how long after the
 *       server's return the store decided again.</li>
 * </ol>
 *
 * A probe thread measures the scheduling lag all along (how late a 1 ms park wakes up): on a
 * loaded machine it is the part of a decision's time that no timeout can cut.
 *
 * <pre>
 * mvn -q -pl jmh -am package -DskipTests
 * java -cp "jmh/target/classes:$(cat jmh/target/benchmark.classpath)" io.sluice.jmh.TimeoutSurvey \
 *     [--store redis|hazelcast|ignite] [--redis redis://host:6379] [--threads 8] [--seconds 30]
 *     [--pause-micros 200] [--outage kill,stop|none]
 * </pre>
 *
 * Ignite needs the {@code --add-opens} flags of {@code store-ignite/jvm-ignite.options} on the
 * {@code java} command line. Outages are measured on Redis only.
 */
public final class TimeoutSurvey {

    private static final String HOT = "hot";
    private static final long[] CANDIDATE_MILLIS = {5, 10, 25, 50, 100, 250};
    private static final Duration UNCUT = Duration.ofSeconds(10);
    private static final Duration OUTAGE = Duration.ofSeconds(2);
    private static final Duration BEFORE_OUTAGE = Duration.ofSeconds(2);
    private static final Duration AFTER_RETURN = Duration.ofSeconds(2);
    /** Every decision reaches the store: a limit no load here comes near, so no denial is cached. */
    private static final Limit UNREACHED = Limit.of(Algorithms.TOKEN_BUCKET, 1_000_000_000L, Duration.ofSeconds(1))
            .named("survey");

    private final int threads;
    private final Duration duration;
    private final long pauseNanos;
    private final SchedulingProbe probe = new SchedulingProbe();

    private TimeoutSurvey(int threads, Duration duration, long pauseNanos) {
        this.threads = threads;
        this.duration = duration;
        this.pauseNanos = pauseNanos;
    }

    public static void main(String[] args) throws Exception {
        String kind = "redis";
        @Nullable String redis = null;
        int threads = 8;
        int seconds = 30;
        long pauseMicros = 200;
        List<String> outages = List.of("kill", "stop");
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : "";
            switch (args[i]) {
                case "--store" -> kind = value;
                case "--redis" -> redis = value;
                case "--threads" -> threads = Integer.parseInt(value);
                case "--seconds" -> seconds = Integer.parseInt(value);
                case "--pause-micros" -> pauseMicros = Long.parseLong(value);
                case "--outage" -> outages = "none".equals(value) ? List.of() : List.of(value.split(","));
                default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'; options: --redis URI, "
                        + "--store redis|hazelcast|ignite, --threads N, --seconds N, --pause-micros N, --outage kill,stop|none");
            }
            i++;
        }
        TimeoutSurvey survey = new TimeoutSurvey(threads, Duration.ofSeconds(seconds), pauseMicros * 1_000);
        System.out.printf(Locale.ROOT, "%s, %d cores, load average %s at the start%n",
                Instant.now().truncatedTo(ChronoUnit.SECONDS), Runtime.getRuntime().availableProcessors(), loadAverage());
        survey.probe.start();
        try {
            switch (kind) {
                case "redis" -> survey.redis(redis, outages);
                case "hazelcast" -> {
                    try (HazelcastCluster cluster = HazelcastCluster.start();
                         Store store = HazelcastStore.builder(cluster.caller()).timeout(UNCUT).countInstances(false)
                                 .build()) {
                        survey.survey(store, remoteKey(cluster::ownedByRemote), "Hazelcast, two members, "
                                + "the key's owner in another JVM");
                    }
                }
                case "ignite" -> {
                    try (IgniteCluster cluster = IgniteCluster.start();
                         Store store = IgniteStore.builder(cluster.caller()).timeout(UNCUT).countInstances(false)
                                 .build()) {
                        survey.survey(store, remoteKey(key -> cluster.primaryOnRemote(IgniteStore.DEFAULT_CACHE_NAME,
                                key)), "Ignite, two server nodes, the key's primary in another JVM");
                    }
                }
                default -> throw new IllegalArgumentException("unknown store '" + kind + "': redis, hazelcast or ignite");
            }
        } finally {
            survey.probe.stop();
            System.out.printf(Locale.ROOT, "load average %s at the end%n", loadAverage());
        }
    }

    private void redis(@Nullable String uri, List<String> outages) throws Exception {
        if (uri != null) {
            try (Store store = RedisStore.standalone(RedisURI.create(uri)).commandTimeout(UNCUT).countInstances(false)
                    .build()) {
                survey(store, HOT, "Redis at the given URI");
            }
            if (!outages.isEmpty()) {
                System.out.println("outages need a server of the tool's own: skipped with --redis");
            }
            return;
        }
        try (RedisFixture fixture = RedisFixture.standalone().start()) {
            try (Store store = RedisStore.standalone(RedisURI.create(fixture.uri())).commandTimeout(UNCUT)
                    .countInstances(false).build()) {
                survey(store, HOT, "redis-server " + fixture.version() + " started by the tool, on loopback");
            }
            for (String outage : outages) {
                outage(fixture, outage);
            }
        }
    }

    /** The first key {@code remote} says is held in the other JVM. */
    private static String remoteKey(java.util.function.Predicate<String> remote) {
        for (int i = 0; ; i++) {
            if (remote.test(HOT + "-" + i)) {
                return HOT + "-" + i;
            }
        }
    }

    private void survey(Store store, String key, String description) throws Exception {
        StoreGuard guard = StoreGuard.custom().timeout(UNCUT).build();
        RateLimiter limiter = RateLimiter.builder().limit(UNREACHED).store(store).layer(guard).build();
        run(limiter, key, duration.dividedBy(3), null);
        probe.reset();
        List<Sample> samples = run(limiter, key, duration, null);
        long[] nanos = samples.stream().mapToLong(Sample::nanos).sorted().toArray();
        System.out.printf(Locale.ROOT, "%nSurvey of %s: %d threads, %d us pause, %d s, timeouts at 10 s%n",
                description, threads, pauseNanos / 1_000, duration.toSeconds());
        System.out.println("| decisions | p50 | p99 | p99.9 | p99.99 | max |");
        System.out.println("| --- | --- | --- | --- | --- | --- |");
        System.out.printf(Locale.ROOT, "| %,d | %s | %s | %s | %s | %s |%n", nanos.length,
                millis(percentile(nanos, 0.5)), millis(percentile(nanos, 0.99)), millis(percentile(nanos, 0.999)),
                millis(percentile(nanos, 0.9999)), millis(nanos[nanos.length - 1]));
        StringBuilder header = new StringBuilder("| a timeout of |");
        StringBuilder line = new StringBuilder("| would have failed |");
        for (long candidate : CANDIDATE_MILLIS) {
            long limit = TimeUnit.MILLISECONDS.toNanos(candidate);
            long cut = nanos.length - upperBound(nanos, limit);
            header.append(' ').append(candidate).append(" ms |");
            line.append(String.format(Locale.ROOT, " %.3f%% (%d) |", 100.0 * cut / nanos.length, cut));
        }
        System.out.println(header);
        System.out.println("| --- | --- | --- | --- | --- | --- | --- |");
        System.out.println(line);
        System.out.printf(Locale.ROOT, "scheduling lag of a 1 ms park meanwhile: %s%n", probe.summary());
    }

    private void outage(RedisFixture fixture, String kind) throws Exception {
        try (Store store = RedisStore.standalone(RedisURI.create(fixture.uri())).commandTimeout(UNCUT)
                .countInstances(false).build()) {
            StoreGuard guard = StoreGuard.custom().instances(threads).build();
            RateLimiter limiter = RateLimiter.builder().limit(UNREACHED.withFailurePolicy(FailurePolicy.FALLBACK))
                    .store(store).layer(guard).build();
            run(limiter, HOT, duration.dividedBy(3), null);
            probe.reset();
            long[] events = new long[3];
            List<Sample> samples = run(limiter, HOT, BEFORE_OUTAGE.plus(OUTAGE).plus(AFTER_RETURN), () -> {
                sleep(BEFORE_OUTAGE);
                events[0] = System.nanoTime();
                if ("kill".equals(kind)) {
                    fixture.kill();
                    sleep(OUTAGE);
                    events[1] = System.nanoTime();
                    fixture.restart();
                } else if ("stop".equals(kind)) {
                    signal(fixture, "STOP");
                    sleep(OUTAGE);
                    events[1] = System.nanoTime();
                    signal(fixture, "CONT");
                } else {
                    throw new IllegalArgumentException("unknown outage '" + kind + "': kill or stop");
                }
                events[2] = System.nanoTime();
            });
            long failed = events[0];
            long back = events[2];
            List<Sample> after = samples.stream().filter(s -> s.startNanos() >= failed).toList();
            long[] nanos = after.stream().mapToLong(Sample::nanos).sorted().toArray();
            long resumed = samples.stream().filter(s -> s.startNanos() >= back && s.fromStore())
                    .mapToLong(Sample::endNanos).min().orElse(Long.MAX_VALUE);
            long notFromStore = after.stream().filter(s -> !s.fromStore()).count();
            System.out.printf(Locale.ROOT, "%nOutage by %s: %d threads, guard timeout %d ms, store timeout 10 s%n",
                    "kill".equals(kind) ? "SIGKILL, restart 2 s later" : "SIGSTOP, SIGCONT 2 s later", threads,
                    StoreGuard.DEFAULT_TIMEOUT.toMillis());
            System.out.printf(Locale.ROOT, "decisions after the failure: %,d (%,d not by the store); slowest %s, "
                            + "p99.9 %s, p99 %s; store decides again %s after the server is back%n",
                    nanos.length, notFromStore, millis(nanos[nanos.length - 1]), millis(percentile(nanos, 0.999)),
                    millis(percentile(nanos, 0.99)),
                    resumed == Long.MAX_VALUE ? "not within 2 s" : millis(resumed - back));
            System.out.printf(Locale.ROOT, "scheduling lag of a 1 ms park meanwhile: %s%n", probe.summary());
        }
    }

    /** Runs the load for {@code length} (while {@code during}, when given, runs on this thread), returning every decision. */
    private List<Sample> run(RateLimiter limiter, String key, Duration length, @Nullable Action during)
            throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        List<List<Sample>> perThread = new ArrayList<>();
        List<Thread> load = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            List<Sample> samples = new ArrayList<>();
            perThread.add(samples);
            Thread thread = new Thread(() -> {
                while (!stop.get()) {
                    long start = System.nanoTime();
                    Decision decision = limiter.decide(key);
                    samples.add(new Sample(start, System.nanoTime(), decision.reason() == Decision.Reason.WITHIN_LIMIT));
                    LockSupport.parkNanos(pauseNanos);
                }
            }, "survey-" + i);
            thread.start();
            load.add(thread);
        }
        long end = System.nanoTime() + length.toNanos();
        if (during != null) {
            during.run();
        }
        sleep(Duration.ofNanos(Math.max(0, end - System.nanoTime())));
        stop.set(true);
        List<Sample> all = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            load.get(i).join();
            all.addAll(perThread.get(i));
        }
        return all;
    }

    /** What happens to the store during a run. */
    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    /** One decision: when it started and ended (System.nanoTime), and whether the store decided it. */
    private record Sample(long startNanos, long endNanos, boolean fromStore) {

        long nanos() {
            return endNanos - startNanos;
        }
    }

    /** How late a thread that parks for 1 ms wakes up: the machine's scheduling lag. */
    private static final class SchedulingProbe {

        private static final long PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
        private final List<Long> lags = new ArrayList<>();
        private volatile boolean stopped;
        private @Nullable Thread thread;

        void start() {
            Thread probe = new Thread(() -> {
                while (!stopped) {
                    long start = System.nanoTime();
                    LockSupport.parkNanos(PARK_NANOS);
                    long lag = System.nanoTime() - start - PARK_NANOS;
                    synchronized (lags) {
                        lags.add(lag);
                    }
                }
            }, "scheduling-probe");
            probe.setDaemon(true);
            probe.start();
            thread = probe;
        }

        void reset() {
            synchronized (lags) {
                lags.clear();
            }
        }

        String summary() {
            long[] sorted;
            synchronized (lags) {
                sorted = lags.stream().mapToLong(Long::longValue).sorted().toArray();
            }
            if (sorted.length == 0) {
                return "no samples";
            }
            return String.format(Locale.ROOT, "p50 %s, p99 %s, p99.9 %s, max %s (%,d parks)",
                    millis(percentile(sorted, 0.5)), millis(percentile(sorted, 0.99)),
                    millis(percentile(sorted, 0.999)), millis(sorted[sorted.length - 1]), sorted.length);
        }

        void stop() throws InterruptedException {
            stopped = true;
            Thread probe = thread;
            if (probe != null) {
                probe.join();
            }
        }
    }

    private static void signal(RedisFixture fixture, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(fixture.pids().get(0))).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " failed");
        }
    }

    private static long percentile(long[] sorted, double quantile) {
        int index = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    /** The number of values at most {@code limit} in {@code sorted}. */
    private static int upperBound(long[] sorted, long limit) {
        int index = Arrays.binarySearch(sorted, limit + 1);
        int insertion = index >= 0 ? index : -index - 1;
        while (insertion > 0 && sorted[insertion - 1] > limit) {
            insertion--;
        }
        while (insertion < sorted.length && sorted[insertion] <= limit) {
            insertion++;
        }
        return insertion;
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }

    private static String loadAverage() {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return load < 0 ? "unknown" : String.format(Locale.ROOT, "%.1f", load);
    }

    private static void sleep(Duration duration) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(duration.toNanos());
    }
}
