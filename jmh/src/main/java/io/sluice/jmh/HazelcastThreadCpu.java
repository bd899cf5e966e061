package io.sluice.jmh;

import io.sluice.testkit.ThreadTimes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where a Hazelcast decision's CPU goes: the limiters of {@link HazelcastImpl} on one named
 * two-member cluster ({@link HazelcastCluster#start(boolean)}, caller not the owner), in turns,
 * each turn a second untimed and then {@code seconds} counted, and for each turn the decisions
 * per second, the median decision, and the CPU time and context switches per decision of every
 * thread group of both JVMs ({@link ThreadTimes}, a group's threads named alike but for their
 * digits, {@link ThreadTimes#digitsAsN}). On 2 cores with 8 threads, throughput is about the inverse of the CPU per decision over both JVMs, so this says which threads a limiter's
 * decisions cost, once compiled (the first round is mostly the JIT's: the compiler threads'
 * groups show it).
 *
 * <pre>
 * java --add-modules java.se ... -cp "$CP" io.sluice.jmh.HazelcastThreadCpu \
 *   SLUICE_TOKEN_BUCKET,BUCKET4J,ENTRY_PROCESSOR HOT 8 3 4
 * arguments: implementations, keys (HOT or RANDOM), threads, seconds per turn, rounds
 * </pre>
 * The JVM options are {@link HazelcastCluster#JVM_ARGS}; limits are {@link LimitShape#SINGLE}.
 * Groups below half a microsecond per decision are not printed.
 */
public final class HazelcastThreadCpu {

    private static final double SHOWN_MICROS = 0.5;

    private HazelcastThreadCpu() {
    }

    /** See the class comment for the arguments. */
    public static void main(String[] args) throws InterruptedException {
        if (args.length != 5) {
            throw new IllegalArgumentException("usage: HazelcastThreadCpu implementations HOT|RANDOM threads seconds rounds");
        }
        List<HazelcastImpl> impls = Arrays.stream(args[0].split(",")).map(HazelcastImpl::valueOf).toList();
        KeyPattern pattern = KeyPattern.valueOf(args[1].toUpperCase(Locale.ROOT));
        int threads = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        int rounds = Integer.parseInt(args[4]);
        try (HazelcastCluster cluster = HazelcastCluster.start(true)) {
            String[] keys = pattern.keys(cluster::ownedByRemote);
            Map<HazelcastImpl, Limiter> limiters = new LinkedHashMap<>();
            for (HazelcastImpl impl : impls) {
                limiters.put(impl, impl.create(cluster, LimitShape.SINGLE));
            }
            try {
                for (int round = 0; round < rounds; round++) {
                    for (Map.Entry<HazelcastImpl, Limiter> limiter : limiters.entrySet()) {
                        System.out.println("round " + round + " " + limiter.getKey() + " " + threads + "t: "
                                + turn(limiter.getValue(), keys, threads, seconds, cluster.remotePid()));
                    }
                }
            } finally {
                limiters.values().forEach(Limiter::close);
            }
        }
    }

    private static String turn(Limiter limiter, String[] keys, int threads, int seconds, long ownerPid)
            throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        LongAdder decisions = new LongAdder();
        long[][] latencies = new long[threads][];
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int index = t;
            Thread thread = new Thread(() -> {
                long[] nanos = new long[1 << 20];
                int count = 0;
                DecisionBenchmark.ThreadKeys walk = new DecisionBenchmark.ThreadKeys();
                while (!stop.get()) {
                    long start = System.nanoTime();
                    limiter.tryAcquire(walk.next(keys), 1);
                    if (count < nanos.length) {
                        nanos[count++] = System.nanoTime() - start;
                    }
                    decisions.increment();
                }
                latencies[index] = Arrays.copyOf(nanos, count);
            }, "bench-" + t);
            running.add(thread);
            thread.start();
        }
        Thread.sleep(1_000);
        long self = ProcessHandle.current().pid();
        Map<Long, ThreadTimes.Sample> callerBefore = ThreadTimes.snapshot(self);
        Map<Long, ThreadTimes.Sample> ownerBefore = ThreadTimes.snapshot(ownerPid);
        long counted = decisions.sum();
        long started = System.nanoTime();
        Thread.sleep(seconds * 1_000L);
        Map<String, ThreadTimes.Times> caller = ThreadTimes.between(callerBefore, ThreadTimes.snapshot(self),
                ThreadTimes::digitsAsN);
        Map<String, ThreadTimes.Times> owner = ThreadTimes.between(ownerBefore, ThreadTimes.snapshot(ownerPid),
                ThreadTimes::digitsAsN);
        long made = Math.max(1, decisions.sum() - counted);
        long elapsed = System.nanoTime() - started;
        stop.set(true);
        for (Thread thread : running) {
            thread.join();
        }
        long[] all = Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
        return String.format(Locale.ROOT, "%,d/s, p50 %.1f us | caller %s | owner %s",
                made * 1_000_000_000L / elapsed, all.length == 0 ? 0 : all[all.length / 2] / 1_000.0,
                perDecision(caller, made), perDecision(owner, made));
    }

    private static String perDecision(Map<String, ThreadTimes.Times> groups, long decisions) {
        long cpu = 0;
        long switches = 0;
        StringBuilder shown = new StringBuilder();
        for (Map.Entry<String, ThreadTimes.Times> group : groups.entrySet()) {
            cpu += group.getValue().runNanos();
            switches += group.getValue().switches();
            double micros = group.getValue().runNanos() / 1_000.0 / decisions;
            if (micros >= SHOWN_MICROS) {
                shown.append(String.format(Locale.ROOT, " %s=%.1f", group.getKey(), micros));
            }
        }
        return String.format(Locale.ROOT, "%.1f us, %.2f switches per decision [%s ]",
                cpu / 1_000.0 / decisions, (double) switches / decisions, shown);
    }
}
