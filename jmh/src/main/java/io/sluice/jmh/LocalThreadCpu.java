package io.sluice.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The CPU time of a local decision: the limiters of {@link LocalImpl} in one JVM, in turns,
 * each turn {@code decisions} decisions per thread, and for each turn the deciding threads'
 * CPU time per decision ({@link ThreadMXBean#getCurrentThreadCpuTime}) and the decisions per
 * second. Why: on a 2-core machine shared with other work, a JMH run's throughput moves with
 * the others' load, while the CPU a decision takes moves much less; turns of every limiter in
 * one JVM put Sluice and its peer side by side (the first rounds are mostly the JIT's).
 *
 * <pre>
 * java -cp "$CP" io.sluice.jmh.LocalThreadCpu SLUICE_TOKEN_BUCKET,SLUICE_GCRA,BUCKET4J MISSION HOT 1 3000000 6
 * arguments: implementations, limits, keys (HOT or RANDOM), threads, decisions per thread and turn, rounds
 * </pre>
 */
public final class LocalThreadCpu {

    private LocalThreadCpu() {
    }

    /** See the class comment for the arguments. */
    public static void main(String[] args) throws InterruptedException {
        if (args.length != 6) {
            throw new IllegalArgumentException(
                    "usage: LocalThreadCpu implementations limits HOT|RANDOM threads decisions rounds");
        }
        List<LocalImpl> impls = Arrays.stream(args[0].split(",")).map(LocalImpl::valueOf).toList();
        LimitShape shape = LimitShape.valueOf(args[1].toUpperCase(Locale.ROOT));
        String[] keys = KeyPattern.valueOf(args[2].toUpperCase(Locale.ROOT)).keys();
        int threads = Integer.parseInt(args[3]);
        long decisions = Long.parseLong(args[4]);
        int rounds = Integer.parseInt(args[5]);
        Limiter[] limiters = new Limiter[impls.size()];
        try {
            for (int i = 0; i < limiters.length; i++) {
                limiters[i] = impls.get(i).create(shape);
            }
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < limiters.length; i++) {
                    System.out.println("round " + round + " " + impls.get(i) + " " + threads + "t: "
                            + turn(limiters[i], keys, threads, decisions));
                }
            }
        } finally {
            for (Limiter limiter : limiters) {
                if (limiter != null) {
                    limiter.close();
                }
            }
        }
    }

    /** One turn of a limiter: its CPU time per decision and decisions per second, as text. */
    private static String turn(Limiter limiter, String[] keys, int threads, long decisions)
            throws InterruptedException {
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        AtomicLong cpuNanos = new AtomicLong();
        AtomicLong admitted = new AtomicLong();
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        Thread[] deciding = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            deciding[t] = new Thread(() -> {
                DecisionBenchmark.ThreadKeys walk = new DecisionBenchmark.ThreadKeys();
                long allowed = 0;
                await(start);
                long before = cpu.getCurrentThreadCpuTime();
                for (long n = 0; n < decisions; n++) {
                    if (limiter.tryAcquire(walk.next(keys), 1)) {
                        allowed++;
                    }
                }
                cpuNanos.addAndGet(cpu.getCurrentThreadCpuTime() - before);
                admitted.addAndGet(allowed);
            });
            deciding[t].start();
        }
        await(start);
        long started = System.nanoTime();
        for (Thread thread : deciding) {
            thread.join();
        }
        long elapsed = System.nanoTime() - started;
        long total = threads * decisions;
        return String.format(Locale.ROOT, "%.1f ns CPU per decision, %.2f million decisions/s, %.1f%% admitted",
                (double) cpuNanos.get() / total, total * 1e3 / elapsed, 100.0 * admitted.get() / total);
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (InterruptedException | BrokenBarrierException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("a turn's start was interrupted", e);
        }
    }
}
