package io.sluice.jmh;

import com.sun.management.OperatingSystemMXBean;
import io.sluice.testkit.redis.RedisFixture;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a Redis decision costs both ends in CPU, whatever else the machine runs: the limiters of
 * {@link RedisImpl} on one standalone {@code redis-server} of their own, in turns, each turn a
 * second untimed and then {@code seconds} counted with {@code threads} threads deciding on random
 * keys ({@link LimitShape#SINGLE}); for each turn the decisions per second, this JVM's CPU time
 * per decision (every thread: the callers, Lettuce's, the store's), {@code redis-server}'s
 * ({@code /proc/<pid>/stat}), and per decision the commands Redis ran (those scripts call too) and
 * the script calls sent ({@code FCALL}, {@code EVALSHA}, {@code EVAL}; {@code INFO commandstats}),
 * and two figures of this JVM that no other process's load moves: the bytes its threads
 * allocated and the times they gave up the CPU to wait ({@code voluntary_ctxt_switches} of
 * {@code /proc}: a hand-off between threads each), per decision.
 * On 2 cores shared by both, the decisions per second follow the sum of the two CPU figures
 * when the machine is busy, so their ratio between limiters of one run is the evidence that
 * does not move with the other processes' load. When the machine is not busy the round trip
 * bounds the callers instead: the batching of issue 10 saved CPU per decision here and lost
 * decisions per second (docs/benchmarks-history.md).
 *
 * <pre>
 * java -cp "$CP" io.sluice.jmh.RedisCpuProbe SLUICE_TOKEN_BUCKET,BUCKET4J,EVALSHA 8 5 2
 * arguments: implementations, threads, seconds per turn, rounds
 * </pre>
 */
public final class RedisCpuProbe {

    /** Linux's clock ticks per second of {@code /proc/<pid>/stat} (USER_HZ, 100 on every common build). */
    private static final long TICKS_PER_SECOND = 100;
    private static final Pattern CALLS = Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+)");
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private RedisCpuProbe() {
    }

    /** See the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
        List<RedisImpl> impls = new ArrayList<>();
        for (String name : args[0].split(",")) {
            impls.add(RedisImpl.valueOf(name));
        }
        int threads = Integer.parseInt(args[1]);
        int seconds = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (RedisFixture redis = RedisFixture.standalone().start()) {
            long pid = redis.pids().get(0);
            System.out.printf("%-20s %5s %12s %14s %16s %13s %13s %10s %10s%n", "limiter", "round", "decisions/s",
                    "JVM CPU us/dec", "Redis CPU us/dec", "commands/dec", "scripts/dec", "bytes/dec", "waits/dec");
            for (int round = 1; round <= rounds; round++) {
                for (RedisImpl impl : impls) {
                    // The limiters name keys alike (Bucket4j and the floor both by the client's
                    // key, in values of different types): each turn starts on an empty server.
                    redis.command(0, "FLUSHALL");
                    try (Limiter limiter = impl.create(redis, LimitShape.SINGLE)) {
                        decide(limiter, threads, 1, new Turn());
                        redis.command(0, "CONFIG", "RESETSTAT");
                        Map<Long, Long> allocatedBefore = allocatedBytes();
                        Map<String, Long> waitsBefore = voluntarySwitches();
                        Turn turn = new Turn();
                        long jvm = os.getProcessCpuTime();
                        long server = cpuNanos(pid);
                        long started = System.nanoTime();
                        long decisions = decide(limiter, threads, seconds, turn);
                        long elapsed = System.nanoTime() - started;
                        jvm = os.getProcessCpuTime() - jvm;
                        server = cpuNanos(pid) - server;
                        long allocated = turn.allocated.sum() + sinceBefore(allocatedBefore, allocatedBytes());
                        long waits = turn.waits.sum() + sinceBefore(waitsBefore, voluntarySwitches());
                        String stats = String.valueOf(redis.command(0, "INFO", "commandstats"));
                        System.out.printf("%-20s %5d %12.0f %14.1f %16.1f %13.2f %13.2f %10.0f %10.2f%n", impl, round,
                                decisions * 1e9 / elapsed, jvm / 1e3 / decisions, server / 1e3 / decisions,
                                (double) calls(stats, false) / decisions, (double) calls(stats, true) / decisions,
                                (double) allocated / decisions, (double) waits / decisions);
                    }
                }
            }
        }
    }

    /** What the deciding threads of one turn report of themselves before they end. */
    private static final class Turn {
        final LongAdder allocated = new LongAdder();
        final LongAdder waits = new LongAdder();
    }

    /**
     * The decisions {@code threads} threads made in {@code seconds} on random keys; each adds
     * its allocated bytes and voluntary context switches to {@code turn} as it ends (a thread's
     * own figures are gone once it has ended).
     */
    private static long decide(Limiter limiter, int threads, int seconds, Turn turn) throws InterruptedException {
        LongAdder decisions = new LongAdder();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                long allocated = THREADS.getCurrentThreadAllocatedBytes();
                long waits = voluntarySwitches(Path.of("/proc/thread-self/status"));
                while (System.nanoTime() < end) {
                    limiter.tryAcquire("client-" + random.nextInt(1_000_000), 1);
                    decisions.increment();
                }
                turn.allocated.add(THREADS.getCurrentThreadAllocatedBytes() - allocated);
                turn.waits.add(voluntarySwitches(Path.of("/proc/thread-self/status")) - waits);
            });
            thread.start();
            running.add(thread);
        }
        for (Thread thread : running) {
            thread.join();
        }
        return decisions.sum();
    }

    /** The bytes each live thread of this JVM allocated so far, by thread id. */
    private static Map<Long, Long> allocatedBytes() {
        long[] ids = THREADS.getAllThreadIds();
        long[] bytes = THREADS.getThreadAllocatedBytes(ids);
        Map<Long, Long> allocated = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                allocated.put(ids[i], bytes[i]);
            }
        }
        return allocated;
    }

    /** The voluntary context switches of each live thread of this JVM so far, by task id. */
    private static Map<String, Long> voluntarySwitches() throws IOException {
        Map<String, Long> switches = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                long count = voluntarySwitches(task.resolve("status"));
                if (count >= 0) {
                    switches.put(task.getFileName().toString(), count);
                }
            }
        }
        return switches;
    }

    /** {@code voluntary_ctxt_switches} of one task's status file, or -1 when the task has ended. */
    private static long voluntarySwitches(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("voluntary_ctxt_switches:")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return -1;
    }

    /**
     * What the threads alive at the end added since {@code before}: a thread started since
     * then counts from zero; one that ended meanwhile is not counted (the deciding threads
     * report their own).
     */
    private static <K> long sinceBefore(Map<K, Long> before, Map<K, Long> after) {
        long sum = 0;
        for (Map.Entry<K, Long> entry : after.entrySet()) {
            sum += entry.getValue() - before.getOrDefault(entry.getKey(), 0L);
        }
        return sum;
    }

    /** The user and system CPU time of a process so far, in nanoseconds. */
    private static long cpuNanos(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        // The fields after the command's name, which is in parentheses and may hold spaces.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * (1_000_000_000L / TICKS_PER_SECOND);
    }

    /**
     * The calls since the reset of every command but the probe's own {@code INFO} and
     * {@code CONFIG}, or of the script calls only.
     */
    private static long calls(String commandStats, boolean scriptsOnly) {
        long calls = 0;
        Matcher matcher = CALLS.matcher(commandStats);
        while (matcher.find()) {
            String command = matcher.group(1);
            boolean script = command.equals("fcall") || command.equals("evalsha") || command.equals("eval");
            if (scriptsOnly ? script : !command.equals("info") && !command.startsWith("config")) {
                calls += Long.parseLong(matcher.group(2));
            }
        }
        return calls;
    }
}
