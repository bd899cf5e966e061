package io.sluice.simulator;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** The default output: a table per fleet, one row per algorithm, printed as each run ends. */
final class TableReport implements Report {

    private final PrintWriter out;
    private final List<SimulationResult> fleetResults = new ArrayList<>();

    TableReport(PrintWriter out) {
        this.out = out;
    }

    @Override
    public void begin(SimulationSettings first) {
        StringBuilder limits = new StringBuilder(String.format(Locale.ROOT,
                "limit per client: %d per %s (burst %d for token-bucket and gcra)",
                first.permits(), DurationConverter.format(first.period()), first.burst()));
        for (Limit also : first.alsoLimits()) {
            limits.append(String.format(Locale.ROOT, ", and %,d per %s (%s)", also.permits(),
                    DurationConverter.format(also.period()), also.algorithm().name()));
        }
        out.println(limits);
        out.printf(Locale.ROOT, "traffic: %d clients x %s requests/s (Poisson) for %s of virtual time, seed %d%n",
                first.clients(), SimulateCommand.plain(first.ratePerSecond()),
                DurationConverter.format(first.duration()), first.seed());
        if (first.blockCache()) {
            out.println("block cache: on (an instance answers a denial that still holds without a store call)");
        }
        Outage outage = first.outage();
        if (outage != null) {
            out.printf(Locale.ROOT, "outage: the store fails every call from %s, failure policy %s%n",
                    outage, OptionConverters.optionName(first.failurePolicy()));
        }
    }

    @Override
    public void beginFleet(SimulationSettings fleet) {
        fleetResults.clear();
        out.printf(Locale.ROOT, "%n%d gateway instances, %s, %s balancer%n", fleet.instances(),
                fleet.perInstance()
                        ? "each with a " + fleet.store().optionName() + " store of its own"
                        : "one shared " + fleet.store().optionName() + " store",
                fleet.balancer().optionName());
        out.printf(Locale.ROOT, "%-24s %12s %12s %12s %10s %9s %10s %10s%n",
                "algorithm", "offered", "admitted", "ideal", "error", "x ideal", "over", "calls/req");
        out.flush();
    }

    @Override
    public void row(SimulationSettings fleet, SimulationResult result) {
        fleetResults.add(result);
        out.printf(Locale.ROOT, "%-24s %,12d %,12d %,12d %+9.2f%% %8.3fx %,10d %10.3f%n",
                result.algorithm(), result.offered(), result.admitted(), result.ideal(),
                result.errorPercent(), result.timesIdeal(), result.overAdmitted(), result.storeCallsPerRequest());
        out.flush();
    }

    @Override
    public void endFleet(SimulationSettings fleet) {
        for (SimulationResult result : fleetResults) {
            if (result.unavailableOutsideOutage() > 0) {
                out.printf(Locale.ROOT, "%s: %,d decisions outside the outage were not the store's "
                        + "(STORE_UNAVAILABLE or FALLBACK: it failed or timed out, or a breaker was still open "
                        + "after the outage)%n", result.algorithm(), result.unavailableOutsideOutage());
            }
        }
        Outage window = fleet.outage();
        if (window == null) {
            return;
        }
        out.printf(Locale.ROOT, "%nduring the outage %s (failure policy %s)%n", window,
                OptionConverters.optionName(fleet.failurePolicy()));
        out.printf(Locale.ROOT, "%-24s %12s %12s %12s  %s%n", "algorithm", "offered", "admitted", "denied",
                "by reason; store deciding again after the outage");
        for (SimulationResult result : fleetResults) {
            SimulationResult.OutageFigures outage = result.outage();
            if (outage == null) {
                continue;
            }
            out.printf(Locale.ROOT, "%-24s %,12d %,12d %,12d  admitted %s; denied %s; store back after %s%n",
                    result.algorithm(), outage.offered(), outage.admittedTotal(), outage.deniedTotal(),
                    byReason(outage.admitted()), byReason(outage.denied()),
                    outage.storeBackAfterMicros() == OutageStore.NOT_BACK ? "never"
                            : DurationConverter.formatMicros(outage.storeBackAfterMicros()));
        }
        out.flush();
    }

    @Override
    public void end() {
        out.printf(Locale.ROOT, "%n" + Ideal.DEFINITION + "%n");
        out.flush();
    }

    private static String byReason(Map<Decision.Reason, Long> counts) {
        if (counts.isEmpty()) {
            return "none";
        }
        return counts.entrySet().stream()
                .map(e -> String.format(Locale.ROOT, "%s %,d", e.getKey(), e.getValue()))
                .collect(Collectors.joining(", "));
    }
}
