package io.sluice.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * What the threads of a process did, from Linux's {@code /proc/<pid>/task}, for benchmarks that
 * say where a decision's time went: each thread's time on a CPU, its time in the run queue
 * waiting for one and its time slices ({@code schedstat}), and its voluntary and involuntary
 * context switches ({@code status}); and the machine's CPU time ({@code /proc/stat}). It reads
 * any process, another JVM or a {@code redis-server} included, where {@code ThreadMXBean} sees
 * only its own JVM's threads.
 *
 * <p>A snapshot keeps each thread's counters by its id. The difference of two snapshots
 * ({@link #between}) counts the threads of the second, a thread born in between from zero, and
 * leaves out those that ended in between, whose last counters cannot be read.
 */
public final class ThreadTimes {

    /**
     * One thread's or group's counters: nanoseconds run on a CPU and waited for one, time slices,
     * and context switches: voluntary (the thread blocked and something woke it again: one
     * wake-up each) and involuntary (preempted).
     */
    public record Times(long runNanos, long waitNanos, long slices, long voluntarySwitches,
                        long involuntarySwitches) {

        /** Nothing yet: where a thread born between two snapshots starts. */
        public static final Times ZERO = new Times(0, 0, 0, 0, 0);

        /** Both counts added, as a group sums its threads. */
        public Times plus(Times other) {
            return new Times(runNanos + other.runNanos, waitNanos + other.waitNanos, slices + other.slices,
                    voluntarySwitches + other.voluntarySwitches, involuntarySwitches + other.involuntarySwitches);
        }

        /** What was counted since {@code earlier}. */
        public Times minus(Times earlier) {
            return new Times(runNanos - earlier.runNanos, waitNanos - earlier.waitNanos, slices - earlier.slices,
                    voluntarySwitches - earlier.voluntarySwitches,
                    involuntarySwitches - earlier.involuntarySwitches);
        }

        /** Voluntary and involuntary context switches together. */
        public long switches() {
            return voluntarySwitches + involuntarySwitches;
        }
    }

    /** A thread's name (as the kernel keeps it: its first 15 bytes) and counters. */
    public record Sample(String name, Times times) {
    }

    /**
     * The machine's CPU time from {@code /proc/stat}'s first line, in clock ticks (USER_HZ, 100 a
     * second on Linux): busy (user, nice, system, irq, softirq, steal) and all (busy plus idle and
     * iowait). Counts what every process ran, those that ended too.
     */
    public record Cpu(long busyTicks, long allTicks) {

        /** The ticks since {@code earlier}. */
        public Cpu minus(Cpu earlier) {
            return new Cpu(busyTicks - earlier.busyTicks, allTicks - earlier.allTicks);
        }
    }

    private ThreadTimes() {
    }

    /** The threads of process {@code pid} now, by thread id; empty when the process has ended. */
    public static Map<Long, Sample> snapshot(long pid) {
        Map<Long, Sample> threads = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    threads.put(Long.parseLong(task.getFileName().toString()),
                            parse(Files.readString(task.resolve("status")), Files.readString(task.resolve("schedstat"))));
                } catch (NoSuchFileException ended) {
                    // The thread ended while the directory was read: it has nothing more to count.
                }
            }
        } catch (NoSuchFileException ended) {
            return Map.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the threads of process " + pid, e);
        }
        return threads;
    }

    /**
     * What each group's threads did between {@code before} and {@code after}, by group name in
     * the names' order; {@code groupOf} gives a thread's group from its name.
     */
    public static Map<String, Times> between(Map<Long, Sample> before, Map<Long, Sample> after,
                                             Function<String, String> groupOf) {
        Map<String, Times> groups = new TreeMap<>();
        after.forEach((tid, sample) -> {
            Sample earlier = before.get(tid);
            // A reused id under another name is another thread: count it from zero.
            Times start = earlier != null && earlier.name().equals(sample.name()) ? earlier.times() : Times.ZERO;
            groups.merge(groupOf.apply(sample.name()), sample.times().minus(start), Times::plus);
        });
        return groups;
    }

    /**
     * A thread's name with every run of digits replaced by {@code N}: a group for {@link #between}
     * in which the threads of one pool are one group ({@code bench-3} and {@code bench-7} are
     * {@code bench-N}).
     */
    public static String digitsAsN(String name) {
        return name.replaceAll("[0-9]+", "N");
    }

    /** The machine's CPU time now. */
    public static Cpu machine() {
        try {
            return parseCpu(Files.readAllLines(Path.of("/proc/stat")).get(0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses {@code /proc/stat}'s {@code cpu} line. */
    static Cpu parseCpu(String line) {
        String[] fields = line.trim().split("\\s+");
        if (fields.length < 9 || !fields[0].equals("cpu")) {
            throw new IllegalArgumentException("not /proc/stat's cpu line: " + line);
        }
        long busy = 0;
        long all = 0;
        for (int i = 1; i <= 8; i++) {
            long ticks = Long.parseLong(fields[i]);
            all += ticks;
            // Fields 4 and 5 are idle and iowait; from 9 on (guest time) is already counted in user.
            if (i != 4 && i != 5) {
                busy += ticks;
            }
        }
        return new Cpu(busy, all);
    }

    /**
     * A thread's sample from its {@code status} file (its name, its voluntary and involuntary
     * context switches) and its {@code schedstat} line (nanoseconds run, nanoseconds waited, time
     * slices).
     */
    static Sample parse(String status, String schedstat) {
        String[] fields = schedstat.trim().split("\\s+");
        if (fields.length < 3) {
            throw new IllegalArgumentException("not a schedstat line: " + schedstat);
        }
        String name = null;
        long voluntary = -1;
        long involuntary = -1;
        for (String line : status.split("\n")) {
            if (line.startsWith("Name:")) {
                name = line.substring("Name:".length()).strip();
            } else if (line.startsWith("voluntary_ctxt_switches:")) {
                voluntary = Long.parseLong(line.substring("voluntary_ctxt_switches:".length()).strip());
            } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                involuntary = Long.parseLong(line.substring("nonvoluntary_ctxt_switches:".length()).strip());
            }
        }
        if (name == null || voluntary < 0 || involuntary < 0) {
            throw new IllegalArgumentException("not a thread's status: " + status);
        }
        return new Sample(name, new Times(Long.parseLong(fields[0]), Long.parseLong(fields[1]),
                Long.parseLong(fields[2]), voluntary, involuntary));
    }
}
