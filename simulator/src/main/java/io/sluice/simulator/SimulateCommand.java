package io.sluice.simulator;

import io.lettuce.core.RedisURI;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.FailurePolicy;
import io.sluice.api.Limit;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code simulate} command: a fleet of gateway instances on one store, in virtual time,
 * against the ideal of one exact limiter. A subcommand of the {@code sluice} program, which
 * registers it as {@code subcommands = {SimulateCommand.class}}; picocli creates it.
 */
@Command(name = "simulate", sortOptions = false,
        description = {
            "Runs simulated clients through a fleet of gateway instances that share one store "
                    + "(in-process, Redis, Hazelcast or Ignite), then, on the in-process store, through the "
                    + "same fleet with a store per instance, and prints for each algorithm what was offered, "
                    + "what was admitted, the ideal (what one exact limiter would admit), the error, the "
                    + "over-admission and the store calls per request. With --outage the store fails for "
                    + "a window of virtual time, and a second table shows what the instances decided in it.",
            "Time is virtual: a run is deterministic for a seed, on every store.",
            ""},
        footer = {"", Ideal.DEFINITION})
public final class SimulateCommand implements Callable<Integer> {

    /** More requests than this per algorithm is surely a typo in the options, not a simulation. */
    static final long MAX_REQUESTS = 100_000_000L;

    @Spec
    private CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    private boolean help;

    @Option(names = "--instances", paramLabel = "N", defaultValue = "20",
            description = "Gateway instances behind the load balancer (1..10000; default ${DEFAULT-VALUE}).")
    private int instances;

    @Option(names = "--store", paramLabel = "STORE", defaultValue = "local",
            converter = OptionConverters.StoreKindConverter.class,
            description = "Where the limits' state lives: local (in this process), redis (the one at --redis), "
                    + "hazelcast or ignite (a member the command starts); default ${DEFAULT-VALUE}.")
    private StoreKind store;

    @Option(names = "--redis", paramLabel = "URI", converter = OptionConverters.RedisUriConverter.class,
            description = "The Redis that --store redis uses, such as redis://127.0.0.1:6379.")
    private @Nullable RedisURI redis;

    @Option(names = "--per-instance",
            description = "Only the fleet with a store per instance: the over-admission of unshared "
                    + "limiters, up to N times the ideal (default: the shared store, then this).")
    private boolean perInstanceOnly;

    @Option(names = "--shared", description = "Only the fleet that shares one store.")
    private boolean sharedOnly;

    @Option(names = "--balancer", paramLabel = "KIND", defaultValue = "round-robin",
            converter = OptionConverters.BalancerConverter.class,
            description = "How requests are spread over the instances: round-robin, random, or skewed "
                    + "(instance i gets a share proportional to 1/(i+1)); default ${DEFAULT-VALUE}.")
    private Balancer balancer;

    @Option(names = "--algorithm", paramLabel = "NAME", split = ",",
            converter = OptionConverters.AlgorithmConverter.class,
            description = "fixed-window, sliding-log, sliding-window-counter, token-bucket, gcra "
                    + "(repeat or separate with commas; default: all five, one row each).")
    private List<Algorithm> algorithms = new ArrayList<>();

    @Option(names = "--permits", paramLabel = "N", defaultValue = "100",
            description = "The limit's permits per period, per client (default ${DEFAULT-VALUE}).")
    private long permits;

    @Option(names = "--period", paramLabel = "DURATION", defaultValue = "1s", converter = DurationConverter.class,
            description = "The limit's period, such as 500ms, 1s, 1m, 1h, 1d (default ${DEFAULT-VALUE}).")
    private Duration period;

    @Option(names = "--burst", paramLabel = "N",
            description = "The capacity of token-bucket and gcra (default: the permits); "
                    + "the windows always hold the permits.")
    private @Nullable Long burst;

    @Option(names = "--also-limit", paramLabel = "[ALGORITHM:]PERMITS/PERIOD",
            converter = OptionConverters.LimitConverter.class,
            description = "A further limit every request is checked against, all-or-nothing with the run's "
                    + "own: fixed-window unless named, such as 1000000/1d (repeatable).")
    private List<Limit> alsoLimits = new ArrayList<>();

    @Option(names = "--clients", paramLabel = "N", defaultValue = "10",
            description = "Clients, each with a limit of its own (1..1000000; default ${DEFAULT-VALUE}).")
    private int clients;

    @Option(names = "--rate", paramLabel = "PER_SECOND",
            description = "Requests per second each client offers, as Poisson arrivals (default: "
                    + "2 x instances x the limit's rate, so that even unshared per-instance limiters bind).")
    private @Nullable Double rate;

    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
            description = "How long the clients send, in virtual time (default ${DEFAULT-VALUE}).")
    private Duration duration;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
            description = "Fixes the arrivals and the balancer's choices (default ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--outage", paramLabel = "FROM..TO", converter = OptionConverters.OutageConverter.class,
            description = "The store fails every call in this window of virtual time, from the start "
                    + "of the traffic, such as 2s..5s.")
    private @Nullable Outage outage;

    @Option(names = "--failure", paramLabel = "POLICY", defaultValue = "closed",
            converter = OptionConverters.FailurePolicyConverter.class,
            description = "What an instance answers when the store cannot decide: closed (deny), fallback "
                    + "(decide in the instance on 1/instances of each limit) or open (admit); "
                    + "default ${DEFAULT-VALUE}.")
    private FailurePolicy failurePolicy;

    @Option(names = "--block-cache",
            description = "Each instance answers a denial that still holds (until its retry-after) from its "
                    + "block cache, without a store call.")
    private boolean blockCache;

    @Option(names = "--json", description = "Print the results as one JSON document instead of tables.")
    private boolean json;

    @Override
    public Integer call() {
        if (perInstanceOnly && sharedOnly) {
            throw usageError("--per-instance and --shared exclude each other; give neither for both");
        }
        if (!store.inProcess() && perInstanceOnly) {
            throw usageError("--per-instance needs --store local: instances of one " + store.optionName()
                    + " share its state");
        }
        if ((store == StoreKind.REDIS) != (redis != null)) {
            throw usageError(redis == null ? "--store redis needs --redis URI, such as redis://127.0.0.1:6379"
                    : "--redis is for --store redis, not --store " + store.optionName());
        }
        List<Algorithm> selected = algorithms.isEmpty() ? Algorithms.all() : algorithms;
        List<SimulationSettings> fleets = new ArrayList<>();
        if (!perInstanceOnly) {
            fleets.add(settings(false, selected));
        }
        // A store outside this process is one state for all instances: only the shared fleet.
        if (!sharedOnly && store.inProcess()) {
            fleets.add(settings(true, selected));
        }
        PrintWriter out = spec.commandLine().getOut();
        Report report = json ? new JsonReport(out) : new TableReport(out);
        try (StoreBackend backend = store.start(redis)) {
            report.begin(fleets.get(0));
            for (SimulationSettings fleet : fleets) {
                report.beginFleet(fleet);
                for (Algorithm algorithm : selected) {
                    report.row(fleet, Simulation.run(fleet, backend, algorithm));
                }
                report.endFleet(fleet);
            }
            report.end();
        } catch (RuntimeException e) {
            // Most likely the store: Redis not reachable at --redis, a member that cannot start.
            spec.commandLine().getErr().println("simulate on the " + store.optionName() + " store failed: " + e);
            return CommandLine.ExitCode.SOFTWARE;
        }
        return CommandLine.ExitCode.OK;
    }

    private SimulationSettings settings(boolean perInstance, List<Algorithm> selected) {
        requireRange("--instances", instances, 1, 10_000);
        requireRange("--clients", clients, 1, 1_000_000);
        if (duration.isNegative() || duration.isZero() || duration.getNano() % 1_000 != 0
                || duration.compareTo(Duration.ofDays(366)) > 0) {
            throw usageError("--duration must be a whole number of microseconds in 1us..366d: "
                    + DurationConverter.format(duration));
        }
        if (outage != null && outage.fromMicros() >= durationMicros(duration)) {
            throw usageError("--outage " + outage + " begins after the traffic ends at "
                    + DurationConverter.format(duration));
        }
        SimulationSettings settings = new SimulationSettings(instances, store, perInstance, balancer, permits,
                burst != null ? burst : permits, period, alsoLimits, clients, rate != null ? rate : defaultRate(),
                duration, seed, failurePolicy, blockCache, outage);
        for (Algorithm algorithm : selected) {
            List<Limit> limits;
            try {
                limits = settings.limits(algorithm);
            } catch (IllegalArgumentException e) {
                throw usageError("--permits, --period, --burst or --also-limit for " + algorithm.name() + ": "
                        + e.getMessage());
            }
            for (Limit limit : limits) {
                try {
                    Ideal.exactLimiter(limit);
                } catch (IllegalArgumentException e) {
                    throw usageError("the ideal of " + limit.algorithm().name()
                            + " cannot be computed for this limit: " + e.getMessage());
                }
            }
        }
        double ratePerSecond = settings.ratePerSecond();
        if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
            throw usageError("--rate must be a positive number of requests per second: " + plain(ratePerSecond));
        }
        if (settings.expectedRequests() > MAX_REQUESTS) {
            throw usageError(String.format(Locale.ROOT, "--clients %d x --rate %s x --duration %s is about %,.0f "
                    + "requests per algorithm, more than %,d: lower one of them", clients,
                    plain(ratePerSecond), DurationConverter.format(duration), settings.expectedRequests(),
                    MAX_REQUESTS));
        }
        return settings;
    }

    private double defaultRate() {
        double periodSeconds = period.getSeconds() + period.getNano() / 1e9;
        return 2.0 * instances * permits / periodSeconds;
    }

    private void requireRange(String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw usageError(option + " must be in " + min + ".." + max + ": " + value);
        }
    }

    private ParameterException usageError(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    private static long durationMicros(Duration duration) {
        return duration.getSeconds() * 1_000_000L + duration.getNano() / 1_000;
    }

    /** {@code value} without trailing zeros or an exponent: {@code 4000}, {@code 0.5}. */
    static String plain(double value) {
        if (!Double.isFinite(value)) {
            return Double.toString(value);
        }
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }
}
