package io.sluice.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs the benchmarks in one of three profiles and writes the figures as Markdown tables
 * with each implementation's ratio to the best peer of the same run.
 *
 * <p>Each profile measures the latency distribution (sample time) from one thread, then the
 * throughput at each of its thread counts. A throughput run at more threads than the machine has
 * cores warms up longer ({@link #warmupIterations}).
 *
 * <pre>
 * java -cp ... io.sluice.jmh.BenchmarkProfiles quick|full|ci [stores] [param=value,value ...]
 *   stores: comma-separated among local, redis, hazelcast, ignite (default: these four), and
 *           custom: your store, named by store=&lt;StoreProvider class name&gt; (see CustomBenchmark)
 *   param:  narrows a @Param, such as impl=SLUICE_GCRA,BUCKET4J or keys=HOT;
 *           threads=1,8,32 replaces the profile's throughput thread counts
 * </pre>
 * The results go to {@code target/benchmarks/} (JMH JSON per run, and {@code results.md}),
 * or to the directory named by the system property {@code sluice.jmh.output}.
 */
public final class BenchmarkProfiles {

    /** How long and at which thread counts a run measures. */
    public enum Profile {
        /** Proves the benchmarks run: in process, 100 ms iterations, one thread. */
        CI(0, 1, 1, 100, 1, 100, List.of(1)),
        /**
         * Minutes per store on a CI-sized machine: one fork, one warm-up of 2 s per thread per
         * core and at least four (8 s), one measurement of 3 s, 1 and 8 threads. At least four:
         * from 1 thread a grid store's caller and member JVMs still compiled the decision's path 2
         * to 6 s into the fork, while the one warm-up of 2 s measured it (benchmarks-history.md,
         * "The quick profile from 1 thread").
         */
        QUICK(1, 1, 4, 2_000, 1, 3_000, List.of(1, 8)),
        /**
         * The published figures: every thread count, longer iterations, and at least 8 warm-ups of
         * 2 s at any thread count: a grid store's two JVMs kept C2 busy for about 8 of the first 20
         * seconds, so the 4 s of 2 threads' warm-up still measured the JIT (benchmarks-history.md,
         * "Ignite at 2 threads").
         */
        FULL(1, 2, 8, 2_000, 3, 3_000, List.of(1, 2, 8, 32));

        final int forks;
        final int warmupIterations;
        final int leastWarmupIterations;
        final int warmupMillis;
        final int measurementIterations;
        final int measurementMillis;
        final List<Integer> throughputThreads;

        Profile(int forks, int warmupIterations, int leastWarmupIterations, int warmupMillis,
                int measurementIterations, int measurementMillis, List<Integer> throughputThreads) {
            this.forks = forks;
            this.warmupIterations = warmupIterations;
            this.leastWarmupIterations = leastWarmupIterations;
            this.warmupMillis = warmupMillis;
            this.measurementIterations = measurementIterations;
            this.measurementMillis = measurementMillis;
            this.throughputThreads = throughputThreads;
        }
    }

    /** A store's benchmark class and the JVM options its forks need. */
    record StoreBenchmark(Class<? extends DecisionBenchmark> benchmark, List<String> jvmArgs) {
    }

    /** The stores, by the name the command line uses. */
    static final Map<String, StoreBenchmark> STORES = new LinkedHashMap<>();

    static {
        STORES.put("local", new StoreBenchmark(LocalBenchmark.class, List.of()));
        STORES.put("redis", new StoreBenchmark(RedisBenchmark.class, List.of()));
        STORES.put("hazelcast", new StoreBenchmark(HazelcastBenchmark.class, HazelcastCluster.JVM_ARGS));
        STORES.put("ignite", new StoreBenchmark(IgniteBenchmark.class, IgniteCluster.JVM_ARGS));
        // Not among the defaults: it needs store=<StoreProvider class name>.
        STORES.put("custom", new StoreBenchmark(CustomBenchmark.class, List.of()));
    }

    private BenchmarkProfiles() {
    }

    /** Runs a profile; see the class comment for the arguments. */
    public static void main(String[] args) throws RunnerException, IOException {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: BenchmarkProfiles quick|full|ci [stores] [param=value,value ...]");
        }
        Profile profile = Profile.valueOf(args[0].toUpperCase(Locale.ROOT));
        List<String> stores = args.length > 1 && !args[1].contains("=")
                ? Arrays.asList(args[1].split(","))
                : STORES.keySet().stream().filter(store -> !store.equals("custom")).toList();
        Map<String, String[]> params = new LinkedHashMap<>();
        List<Integer> threads = profile.throughputThreads;
        for (String arg : Arrays.asList(args).subList(1, args.length)) {
            int equals = arg.indexOf('=');
            if (equals > 0 && arg.startsWith("threads=")) {
                threads = Arrays.stream(arg.substring(equals + 1).split(",")).map(Integer::valueOf).toList();
            } else if (equals > 0) {
                params.put(arg.substring(0, equals), arg.substring(equals + 1).split(","));
            }
        }
        Path output = Path.of(System.getProperty("sluice.jmh.output", "target/benchmarks"));
        Files.createDirectories(output);
        Collection<RunResult> results = run(profile, threads, stores, params, output);
        String command = "BenchmarkProfiles " + String.join(" ", args);
        Path report = output.resolve("results.md");
        Files.writeString(report, ResultTables.markdown(command, results));
        System.out.println("Wrote " + report.toAbsolutePath());
    }

    /**
     * Runs the benchmarks of {@code stores} in {@code profile}, narrowed by {@code params}, and
     * returns every run's result. JMH's JSON for each run is written to {@code output}.
     */
    public static Collection<RunResult> run(Profile profile, List<String> stores,
                                            Map<String, String[]> params, Path output)
            throws RunnerException {
        return run(profile, profile.throughputThreads, stores, params, output);
    }

    /** As {@link #run(Profile, List, Map, Path)}, measuring throughput at {@code throughputThreads}. */
    public static Collection<RunResult> run(Profile profile, List<Integer> throughputThreads, List<String> stores,
                                            Map<String, String[]> params, Path output)
            throws RunnerException {
        List<RunResult> results = new ArrayList<>();
        for (String store : stores) {
            StoreBenchmark benchmark = STORES.get(store);
            if (benchmark == null) {
                throw new IllegalArgumentException("unknown store '" + store + "', expected one of " + STORES.keySet());
            }
            results.addAll(new Runner(options(profile, benchmark, params, Mode.SampleTime, 1,
                    output.resolve(store + "-latency.json"))).run());
            for (int threads : throughputThreads) {
                results.addAll(new Runner(options(profile, benchmark, params, Mode.Throughput, threads,
                        output.resolve(store + "-throughput-" + threads + "t.json"))).run());
            }
        }
        return results;
    }

    private static Options options(Profile profile, StoreBenchmark benchmark, Map<String, String[]> params,
                                   Mode mode, int threads, Path json) {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include("^" + benchmark.benchmark().getName().replace(".", "\\.") + "\\.")
                .jvmArgsAppend(benchmark.jvmArgs().toArray(String[]::new))
                .mode(mode)
                .timeUnit(mode == Mode.SampleTime ? TimeUnit.MICROSECONDS : TimeUnit.SECONDS)
                .threads(threads)
                .forks(profile.forks)
                .warmupIterations(warmupIterations(profile, threads, Runtime.getRuntime().availableProcessors()))
                .warmupTime(TimeValue.milliseconds(profile.warmupMillis))
                .measurementIterations(profile.measurementIterations)
                .measurementTime(TimeValue.milliseconds(profile.measurementMillis))
                .shouldFailOnError(true)
                .verbosity(profile == Profile.CI ? VerboseMode.SILENT : VerboseMode.NORMAL)
                .resultFormat(ResultFormatType.JSON)
                .result(json.toString());
        params.forEach(options::param);
        return options.build();
    }

    /**
     * The warm-up iterations of a run at {@code threads} on {@code cores}: the profile's, times
     * the threads per core, rounded up, and at least the profile's least. Why: the JIT's compiler threads share the cores with the
     * benchmark's threads, so from 8 threads on 2 cores C2 gets about a quarter of the CPU it gets
     * from one thread, and is done compiling a decision's path about four times later (5 to 6 s
     * into the run, where one warm-up of 2 s ended long before). The measured seconds were then
     * the JIT's progress, not a decision, for every implementation alike; each implementation gets
     * the same longer warm-up.
     */
    static int warmupIterations(Profile profile, int threads, int cores) {
        if (threads < 1 || cores < 1) {
            throw new IllegalArgumentException("threads and cores must be at least 1: " + threads + ", " + cores);
        }
        return Math.max(profile.leastWarmupIterations, profile.warmupIterations * ((threads + cores - 1) / cores));
    }
}
