package io.sluice.gateway;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The {@code simulate} command: a fleet of gateway instances on one store, in virtual time. */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
        versionProvider = Sluice.Version.class,
        description = {
            "Runs simulated clients through a fleet of gateway instances that share one store, "
                    + "then through the same fleet with a store per instance, and prints for each "
                    + "algorithm what was offered, what was admitted, the ideal (what one exact limiter "
                    + "would admit), the error and the store calls per request.",
            "Time is virtual: a run is deterministic for a seed and takes seconds.",
            ""},
        footer = {"", Ideal.DEFINITION})
final class SimulateCommand implements Callable<Integer> {

    /** More requests than this per algorithm is surely a typo in the options, not a simulation. */
    static final long MAX_REQUESTS = 100_000_000L;

    @Spec
    private CommandSpec spec;

    @Option(names = "--instances", paramLabel = "N", defaultValue = "20",
            description = "Gateway instances behind the load balancer (1..10000; default ${DEFAULT-VALUE}).")
    private int instances;

    @Option(names = "--store", paramLabel = "STORE", defaultValue = "local",
            description = "Where the limits' state lives: local (default ${DEFAULT-VALUE}).")
    private StoreKind store;

    @Option(names = "--per-instance",
            description = "Only the fleet with a store per instance: the over-admission of unshared "
                    + "limiters, up to N times the ideal (default: the shared store, then this).")
    private boolean perInstanceOnly;

    @Option(names = "--shared", description = "Only the fleet that shares one store.")
    private boolean sharedOnly;

    @Option(names = "--balancer", paramLabel = "KIND", defaultValue = "round-robin",
            description = "How requests are spread over the instances: round-robin, random, or skewed "
                    + "(instance i gets a share proportional to 1/(i+1)); default ${DEFAULT-VALUE}.")
    private Balancer balancer;

    @Option(names = "--algorithm", paramLabel = "NAME", split = ",",
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

    @Override
    public Integer call() {
        if (perInstanceOnly && sharedOnly) {
            throw usageError("--per-instance and --shared exclude each other; give neither for both");
        }
        List<Algorithm> selected = algorithms.isEmpty() ? Algorithms.all() : algorithms;
        List<SimulationSettings> fleets = new ArrayList<>();
        if (!perInstanceOnly) {
            fleets.add(settings(false, selected));
        }
        if (!sharedOnly) {
            fleets.add(settings(true, selected));
        }
        PrintWriter out = spec.commandLine().getOut();
        SimulationSettings first = fleets.get(0);
        out.printf(Locale.ROOT, "limit per client: %d per %s (burst %d for token-bucket and gcra)%n",
                first.permits(), DurationConverter.format(first.period()), first.burst());
        out.printf(Locale.ROOT, "traffic: %d clients x %s requests/s (Poisson) for %s of virtual time, seed %d%n",
                first.clients(), plain(first.ratePerSecond()), DurationConverter.format(first.duration()),
                first.seed());
        for (SimulationSettings fleet : fleets) {
            out.printf(Locale.ROOT, "%n%d gateway instances, %s, %s balancer%n", fleet.instances(),
                    fleet.perInstance()
                            ? "each with a " + fleet.store().optionName() + " store of its own"
                            : "one shared " + fleet.store().optionName() + " store",
                    fleet.balancer().optionName());
            out.printf(Locale.ROOT, "%-24s %12s %12s %12s %10s %9s %10s%n",
                    "algorithm", "offered", "admitted", "ideal", "error", "x ideal", "calls/req");
            for (Algorithm algorithm : selected) {
                SimulationResult result = Simulation.run(fleet, algorithm);
                out.printf(Locale.ROOT, "%-24s %,12d %,12d %,12d %+9.2f%% %8.3fx %10.3f%n",
                        result.algorithm(), result.offered(), result.admitted(), result.ideal(),
                        result.errorPercent(), result.timesIdeal(), result.storeCallsPerRequest());
                out.flush();
            }
        }
        out.printf(Locale.ROOT, "%n" + Ideal.DEFINITION + "%n");
        out.flush();
        return 0;
    }

    private SimulationSettings settings(boolean perInstance, List<Algorithm> selected) {
        requireRange("--instances", instances, 1, 10_000);
        requireRange("--clients", clients, 1, 1_000_000);
        if (duration.isNegative() || duration.isZero() || duration.getNano() % 1_000 != 0
                || duration.compareTo(Duration.ofDays(366)) > 0) {
            throw usageError("--duration must be a whole number of microseconds in 1us..366d: "
                    + DurationConverter.format(duration));
        }
        SimulationSettings settings = new SimulationSettings(instances, store, perInstance, balancer, permits,
                burst != null ? burst : permits, period, clients, rate != null ? rate : defaultRate(), duration,
                seed);
        for (Algorithm algorithm : selected) {
            Limit limit;
            try {
                limit = settings.limit(algorithm);
            } catch (IllegalArgumentException e) {
                throw usageError("--permits, --period or --burst for " + algorithm.name() + ": " + e.getMessage());
            }
            try {
                Ideal.exactLimiter(limit);
            } catch (IllegalArgumentException e) {
                throw usageError("the ideal of " + algorithm.name() + " cannot be computed for this limit: "
                        + e.getMessage());
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

    private static String plain(double value) {
        if (!Double.isFinite(value)) {
            return Double.toString(value);
        }
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }
}
