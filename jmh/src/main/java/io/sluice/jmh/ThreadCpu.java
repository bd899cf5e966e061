package io.sluice.jmh;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * The CPU time and context switches of a process's threads, summed by thread group, from Linux's
 * {@code /proc/<pid>/task}: a group is a thread's name as the kernel keeps it (its first 15
 * characters) with every run of digits replaced by {@code N}, so the eight threads of a pool are
 * one group. Works for any process, a Hazelcast member in another JVM included, where
 * {@code ThreadMXBean} sees only its own JVM.
 */
final class ThreadCpu {

    /** One group's totals: nanoseconds on a CPU ({@code schedstat}) and voluntary plus involuntary switches. */
    record Usage(long cpuNanos, long switches) {

        Usage minus(Usage earlier) {
            return new Usage(cpuNanos - earlier.cpuNanos, switches - earlier.switches);
        }
    }

    private ThreadCpu() {
    }

    /** The totals of {@code pid}'s live threads by group, in the groups' order. */
    static Map<String, Usage> byGroup(long pid) {
        Map<String, Usage> groups = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    String group = Files.readString(task.resolve("comm")).strip().replaceAll("[0-9]+", "N");
                    long cpuNanos = Long.parseLong(Files.readString(task.resolve("schedstat")).strip().split(" ")[0]);
                    long switches = 0;
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                            switches += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                        }
                    }
                    groups.merge(group, new Usage(cpuNanos, switches),
                            (a, b) -> new Usage(a.cpuNanos + b.cpuNanos, a.switches + b.switches));
                } catch (NoSuchFileException e) {
                    // The thread ended while it was read: it is not counted.
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the threads of process " + pid, e);
        }
        return groups;
    }

    /** What each group used from {@code earlier} to {@code later} (a group that ended in between is left out). */
    static Map<String, Usage> between(Map<String, Usage> earlier, Map<String, Usage> later) {
        Map<String, Usage> used = new TreeMap<>();
        later.forEach((group, usage) -> used.put(group, usage.minus(earlier.getOrDefault(group, new Usage(0, 0)))));
        return used;
    }
}
