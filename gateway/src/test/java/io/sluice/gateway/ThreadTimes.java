package io.sluice.gateway;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * For the gateway benchmark: how long threads ran on a CPU and how long they waited in the run
 * queue for one, from Linux's {@code /proc/<pid>/task/<tid>/schedstat} (nanoseconds run,
 * nanoseconds waited, time slices). A wait as long as the run, or longer, says the machine was
 * saturated: a latency measured then is the scheduler's as much as the code's.
 *
 * <p>A snapshot keeps each thread's counters by its id; the difference of two snapshots counts
 * the threads of the second (a thread born in between from zero) and drops those that ended
 * in between, whose last counters cannot be read.
 */
final class ThreadTimes {

    /** One thread's (or group's) counters. */
    record Times(long runNanos, long waitNanos, long slices) {

        static final Times ZERO = new Times(0, 0, 0);

        Times plus(Times other) {
            return new Times(runNanos + other.runNanos, waitNanos + other.waitNanos, slices + other.slices);
        }

        Times minus(Times other) {
            return new Times(runNanos - other.runNanos, waitNanos - other.waitNanos, slices - other.slices);
        }
    }

    /** A thread's name (as the kernel keeps it: the first 15 bytes) and counters. */
    record Sample(String name, Times times) {
    }

    /**
     * The machine's CPU time from {@code /proc/stat}'s first line, in clock ticks (USER_HZ, 100 a
     * second on Linux): busy (user, nice, system, irq, softirq, steal) and all (busy plus idle and
     * iowait). Counts what every process ran, those that ended too.
     */
    record Cpu(long busyTicks, long allTicks) {

        Cpu minus(Cpu other) {
            return new Cpu(busyTicks - other.busyTicks, allTicks - other.allTicks);
        }
    }

    private ThreadTimes() {
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

    /** The machine's CPU time now. */
    static Cpu machine() {
        try {
            return parseCpu(Files.readAllLines(Path.of("/proc/stat")).get(0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses a schedstat line: run and wait nanoseconds and time slices. */
    static Times parseSchedstat(String line) {
        String[] fields = line.trim().split("\\s+");
        if (fields.length < 3) {
            throw new IllegalArgumentException("not a schedstat line: " + line);
        }
        return new Times(Long.parseLong(fields[0]), Long.parseLong(fields[1]), Long.parseLong(fields[2]));
    }

    /** The threads of process {@code pid} now, by thread id; empty when it has ended. */
    static Map<Long, Sample> snapshot(long pid) {
        Map<Long, Sample> threads = new HashMap<>();
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
            for (Path task : dir) {
                try {
                    String name = Files.readString(task.resolve("comm")).strip();
                    Times times = parseSchedstat(Files.readString(task.resolve("schedstat")));
                    threads.put(Long.parseLong(task.getFileName().toString()), new Sample(name, times));
                } catch (NoSuchFileException ended) {
                    // The thread ended while the directory was read: it has nothing more to count.
                }
            }
        } catch (NoSuchFileException ended) {
            return Map.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return threads;
    }

    /**
     * The threads of process {@code pid} now, by thread id, with their context switches from
     * {@code /proc/<pid>/task/<tid>/status} in place of the schedstat times: voluntary (the
     * thread blocked, and something woke it again: one wake-up each) as {@link Times#runNanos},
     * involuntary (preempted) as {@link Times#waitNanos}; empty when the process has ended.
     */
    static Map<Long, Sample> switches(long pid) {
        Map<Long, Sample> threads = new HashMap<>();
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
            for (Path task : dir) {
                try {
                    threads.put(Long.parseLong(task.getFileName().toString()),
                            parseStatus(Files.readString(task.resolve("status"))));
                } catch (NoSuchFileException ended) {
                    // The thread ended while the directory was read: it has nothing more to count.
                }
            }
        } catch (NoSuchFileException ended) {
            return Map.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return threads;
    }

    /** A thread's name and context switches (voluntary, involuntary) from its {@code status} file. */
    static Sample parseStatus(String status) {
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
        return new Sample(name, new Times(voluntary, involuntary, 0));
    }

    /** What each group's threads ran and waited between {@code before} and {@code after}, by group name. */
    static Map<String, Times> between(Map<Long, Sample> before, Map<Long, Sample> after,
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
     * One line per group: milliseconds run and waited in all, and per call of {@code calls}
     * (the calls the workers timed), with the wait-to-run ratio.
     */
    static List<String> describe(Map<String, Times> groups, long calls) {
        Map<String, String> lines = new LinkedHashMap<>();
        Times total = Times.ZERO;
        for (Map.Entry<String, Times> group : groups.entrySet()) {
            lines.put(group.getKey(), line(group.getKey(), group.getValue(), calls));
            total = total.plus(group.getValue());
        }
        lines.put("all of the above", line("all of the above", total, calls));
        return List.copyOf(lines.values());
    }

    private static String line(String name, Times times, long calls) {
        double perCall = Math.max(1, calls) * 1e6;
        return String.format(Locale.ROOT, "  %-28s run %9.1f ms, waited %9.1f ms (%.2fx); per call run %.3f ms, "
                        + "waited %.3f ms; %d slices", name, times.runNanos() / 1e6, times.waitNanos() / 1e6,
                times.runNanos() == 0 ? 0.0 : (double) times.waitNanos() / times.runNanos(),
                times.runNanos() / perCall, times.waitNanos() / perCall, times.slices());
    }
}
