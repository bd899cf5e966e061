package io.sluice.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.RunResult;

/**
 * Turns JMH results into Markdown: per store and limit shape, a latency table (one thread)
 * and a throughput table, each figure with its ratio to the best peer measured in the same
 * run (and, for stores that have one, to the floor: the least a round trip costs).
 */
final class ResultTables {

    /** Implementations that are not peers but the cost of one bare round trip to the store. */
    static final Set<String> FLOORS = Set.of("EVALSHA", "ENTRY_PROCESSOR", "INVOKE");

    private static final double[] PERCENTILES = {50, 99, 99.9};

    private ResultTables() {
    }

    static boolean isSluice(String impl) {
        return impl.startsWith("SLUICE_");
    }

    /** A store of the user's own, measured by {@link CustomBenchmark}. */
    static boolean isCustom(String impl) {
        return impl.startsWith(CustomImpl.PREFIX);
    }

    static boolean isPeer(String impl) {
        return !isSluice(impl) && !isCustom(impl) && !FLOORS.contains(impl);
    }

    /** The whole report: how and where it ran, then the tables. */
    static String markdown(String command, Collection<RunResult> results) {
        StringBuilder out = new StringBuilder();
        out.append("Command: `").append(command).append("`\n\n");
        out.append(environment()).append('\n');
        Map<String, List<RunResult>> groups = results.stream().collect(Collectors.groupingBy(
                ResultTables::group, LinkedHashMap::new, Collectors.toList()));
        groups.forEach((group, runs) -> {
            out.append("\n### ").append(group).append("\n\n");
            out.append(latencyTable(runs)).append('\n');
            out.append(throughputTable(runs));
        });
        return out.toString();
    }

    /** Machine, JDK and date, as the report states them. */
    static String environment() {
        return "- Machine: " + cpuModel() + ", " + Runtime.getRuntime().availableProcessors()
                + " cores, " + memory() + ", " + System.getProperty("os.name") + " "
                + System.getProperty("os.version") + "\n"
                + "- JDK: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + "\n"
                + "- Date: " + Instant.now().truncatedTo(ChronoUnit.MINUTES) + "\n";
    }

    private static String group(RunResult run) {
        BenchmarkParams params = run.getParams();
        String benchmark = params.getBenchmark();
        String store = benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1,
                benchmark.lastIndexOf('.')).replace("Benchmark", "");
        String rest = params.getParamsKeys().stream()
                .filter(key -> !key.equals("impl") && !key.equals("keys"))
                .map(key -> key + "=" + params.getParam(key))
                .collect(Collectors.joining(", "));
        return rest.isEmpty() ? store : store + ", " + rest;
    }

    private static String latencyTable(List<RunResult> runs) {
        List<RunResult> latency = runs.stream().filter(r -> r.getParams().getMode() == Mode.SampleTime).toList();
        if (latency.isEmpty()) {
            return "";
        }
        Set<String> keyPatterns = values(latency, "keys");
        StringBuilder out = new StringBuilder("Latency of one decision from 1 thread, us"
                + (hasPeer(latency) ? " (p50 also as a ratio to the best peer's p50"
                        + (hasFloor(latency) ? " and to the floor's" : "") + "; lower is better)" : "")
                + ":\n\n| impl |");
        StringBuilder rule = new StringBuilder("| --- |");
        for (String keys : keyPatterns) {
            for (double p : PERCENTILES) {
                out.append(' ').append(keys).append(" p").append(format(p)).append(" |");
                rule.append(" ---: |");
            }
        }
        out.append('\n').append(rule).append('\n');
        for (String impl : values(latency, "impl")) {
            out.append("| ").append(label(impl)).append(" |");
            for (String keys : keyPatterns) {
                for (double p : PERCENTILES) {
                    OptionalDouble value = find(latency, impl, keys, 1, r -> percentile(r, p));
                    out.append(' ').append(value.isPresent() ? format(value.getAsDouble()) : "-");
                    if (p == 50 && value.isPresent()) {
                        out.append(ratios(value.getAsDouble(), latency, keys, 1, r -> percentile(r, 50), true));
                    }
                    out.append(" |");
                }
            }
            out.append('\n');
        }
        return out.toString();
    }

    private static String throughputTable(List<RunResult> runs) {
        List<RunResult> throughput = runs.stream().filter(r -> r.getParams().getMode() == Mode.Throughput).toList();
        if (throughput.isEmpty()) {
            return "";
        }
        Set<String> keyPatterns = values(throughput, "keys");
        Set<Integer> threadCounts = throughput.stream().map(r -> r.getParams().getThreads())
                .collect(Collectors.toCollection(TreeSet::new));
        StringBuilder out = new StringBuilder("Throughput, decisions/s"
                + (hasPeer(throughput) ? " (and the ratio to the best peer in the same column; higher is better)" : "")
                + ":\n\n| impl |");
        StringBuilder rule = new StringBuilder("| --- |");
        for (String keys : keyPatterns) {
            for (int threads : threadCounts) {
                out.append(' ').append(keys).append(' ').append(threads).append("t |");
                rule.append(" ---: |");
            }
        }
        out.append('\n').append(rule).append('\n');
        for (String impl : values(throughput, "impl")) {
            out.append("| ").append(label(impl)).append(" |");
            for (String keys : keyPatterns) {
                for (int threads : threadCounts) {
                    OptionalDouble value = find(throughput, impl, keys, threads, r -> r.getPrimaryResult().getScore());
                    out.append(' ').append(value.isPresent() ? String.format(Locale.ROOT, "%,.0f", value.getAsDouble()) : "-");
                    if (value.isPresent()) {
                        out.append(ratios(value.getAsDouble(), throughput, keys, threads,
                                r -> r.getPrimaryResult().getScore(), false));
                    }
                    out.append(" |");
                }
            }
            out.append('\n');
        }
        return out.toString();
    }

    /** " (0.5x peer, 1.1x floor)": the value over the best peer's (and the floor's) in the same column. */
    private static String ratios(double value, List<RunResult> runs, String keys, int threads,
                                 ToDoubleFunction<RunResult> metric, boolean lowerIsBetter) {
        List<String> parts = new ArrayList<>();
        OptionalDouble bestPeer = runs.stream()
                .filter(r -> isPeer(r.getParams().getParam("impl")) && matches(r, keys, threads))
                .mapToDouble(metric)
                .reduce(lowerIsBetter ? Math::min : Math::max);
        if (bestPeer.isPresent() && bestPeer.getAsDouble() > 0) {
            parts.add(format(value / bestPeer.getAsDouble()) + "x peer");
        }
        runs.stream()
                .filter(r -> FLOORS.contains(r.getParams().getParam("impl")) && matches(r, keys, threads))
                .mapToDouble(metric)
                .findFirst()
                .ifPresent(floor -> parts.add(format(value / floor) + "x floor"));
        return parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")";
    }

    private static boolean hasPeer(List<RunResult> runs) {
        return runs.stream().anyMatch(r -> isPeer(r.getParams().getParam("impl")));
    }

    private static boolean hasFloor(List<RunResult> runs) {
        return runs.stream().anyMatch(r -> FLOORS.contains(r.getParams().getParam("impl")));
    }

    private static String label(String impl) {
        return FLOORS.contains(impl) ? impl + " (floor)" : isSluice(impl) || isCustom(impl) ? "**" + impl + "**" : impl;
    }

    private static OptionalDouble find(List<RunResult> runs, String impl, String keys, int threads,
                                       ToDoubleFunction<RunResult> metric) {
        return runs.stream()
                .filter(r -> r.getParams().getParam("impl").equals(impl) && matches(r, keys, threads))
                .mapToDouble(metric)
                .findFirst();
    }

    private static boolean matches(RunResult run, String keys, int threads) {
        return run.getParams().getParam("keys").equals(keys) && run.getParams().getThreads() == threads;
    }

    private static double percentile(RunResult run, double p) {
        return run.getPrimaryResult().getStatistics().getPercentile(p);
    }

    private static Set<String> values(List<RunResult> runs, String param) {
        return runs.stream().map(r -> r.getParams().getParam(param))
                .collect(Collectors.toCollection(LinkedHashSet::new));
    }

    /** Three significant digits, no exponent. */
    static String format(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e6) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        int digits = value == 0 ? 0 : Math.max(0, 2 - (int) Math.floor(Math.log10(Math.abs(value))));
        return String.format(Locale.ROOT, "%." + digits + "f", value);
    }

    private static String cpuModel() {
        return firstLine(Path.of("/proc/cpuinfo"), "model name").orElse(System.getProperty("os.arch"));
    }

    private static String memory() {
        return firstLine(Path.of("/proc/meminfo"), "MemTotal")
                .map(kb -> Math.round(Long.parseLong(kb.replaceAll("\\D", "")) / 1048576.0) + " GiB memory")
                .orElse(Runtime.getRuntime().maxMemory() / 1_073_741_824 + " GiB heap");
    }

    private static java.util.Optional<String> firstLine(Path file, String field) {
        try (var lines = Files.lines(file)) {
            return lines.filter(line -> line.startsWith(field))
                    .map(line -> line.substring(line.indexOf(':') + 1).trim())
                    .findFirst();
        } catch (IOException | RuntimeException e) {
            return java.util.Optional.empty();
        }
    }
}
