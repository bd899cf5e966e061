package io.sluice.simulator;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.io.PrintWriter;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@code --json}: one JSON document, {@code {"runs": [...]}}, with an object per fleet and
 * algorithm: its settings, the figures of the table, and what happened during the outage.
 * Durations are whole microseconds; a figure that has no value (the error when the ideal is 0,
 * the store's return when it never decided again) is {@code null}.
 */
final class JsonReport implements Report {

    private final PrintWriter out;
    private boolean firstRun = true;

    JsonReport(PrintWriter out) {
        this.out = out;
    }

    @Override
    public void begin(SimulationSettings first) {
        out.print("{\"runs\": [");
    }

    @Override
    public void beginFleet(SimulationSettings fleet) {
    }

    @Override
    public void row(SimulationSettings fleet, SimulationResult result) {
        out.print(firstRun ? "\n" : ",\n");
        firstRun = false;
        StringBuilder json = new StringBuilder("  {");
        field(json, "algorithm", quote(result.algorithm())).append(", ");
        field(json, "store", quote(fleet.store().optionName())).append(", ");
        field(json, "fleet", quote(fleet.perInstance() ? "per-instance" : "shared")).append(",\n   ");
        field(json, "settings", settings(fleet, result.algorithm())).append(",\n   ");
        field(json, "offered", result.offered()).append(", ");
        field(json, "admitted", result.admitted()).append(", ");
        field(json, "ideal", result.ideal()).append(", ");
        field(json, "overAdmitted", result.overAdmitted()).append(", ");
        field(json, "errorPercent", number(result.errorPercent())).append(", ");
        field(json, "timesIdeal", number(result.timesIdeal())).append(",\n   ");
        field(json, "storeCalls", result.storeCalls()).append(", ");
        field(json, "storeCallsPerRequest", number(result.storeCallsPerRequest())).append(", ");
        field(json, "unavailableOutsideOutage", result.unavailableOutsideOutage()).append(",\n   ");
        field(json, "outage", outage(result.outage())).append('}');
        out.print(json);
        out.flush();
    }

    @Override
    public void endFleet(SimulationSettings fleet) {
    }

    @Override
    public void end() {
        out.println("\n]}");
        out.flush();
    }

    private static String settings(SimulationSettings fleet, String algorithm) {
        StringBuilder json = new StringBuilder("{");
        field(json, "instances", fleet.instances()).append(", ");
        field(json, "balancer", quote(fleet.balancer().optionName())).append(", ");
        StringBuilder limits = new StringBuilder("[");
        String separator = "";
        for (Limit limit : fleet.limits(Algorithms.byName(algorithm))) {
            limits.append(separator).append("{\"name\": ").append(quote(limit.name()))
                    .append(", \"algorithm\": ").append(quote(limit.algorithm().name()))
                    .append(", \"permits\": ").append(limit.permits())
                    .append(", \"periodMicros\": ").append(limit.periodMicros())
                    .append(", \"burst\": ").append(limit.burst()).append('}');
            separator = ", ";
        }
        field(json, "limits", limits.append(']')).append(", ");
        field(json, "clients", fleet.clients()).append(", ");
        field(json, "ratePerSecond", number(fleet.ratePerSecond())).append(", ");
        field(json, "durationMicros", fleet.durationMicros()).append(", ");
        field(json, "seed", fleet.seed()).append(", ");
        field(json, "failure", quote(OptionConverters.optionName(fleet.failurePolicy()))).append(", ");
        field(json, "blockCache", fleet.blockCache()).append(", ");
        Outage outage = fleet.outage();
        field(json, "outage", outage == null ? "null"
                : "{\"fromMicros\": " + outage.fromMicros() + ", \"toMicros\": " + outage.toMicros() + "}");
        return json.append('}').toString();
    }

    private static String outage(SimulationResult.@Nullable OutageFigures outage) {
        if (outage == null) {
            return "null";
        }
        StringBuilder json = new StringBuilder("{");
        field(json, "offered", outage.offered()).append(", ");
        field(json, "admitted", byReason(outage.admittedTotal(), outage.admitted())).append(", ");
        field(json, "denied", byReason(outage.deniedTotal(), outage.denied())).append(", ");
        field(json, "storeBackAfterMicros", outage.storeBackAfterMicros() == OutageStore.NOT_BACK ? "null"
                : Long.toString(outage.storeBackAfterMicros()));
        return json.append('}').toString();
    }

    private static String byReason(long total, Map<Decision.Reason, Long> counts) {
        StringBuilder json = new StringBuilder("{\"total\": ").append(total).append(", \"byReason\": {");
        String separator = "";
        for (Map.Entry<Decision.Reason, Long> count : counts.entrySet()) {
            json.append(separator).append(quote(count.getKey().name())).append(": ").append(count.getValue());
            separator = ", ";
        }
        return json.append("}}").toString();
    }

    private static StringBuilder field(StringBuilder json, String name, Object value) {
        return json.append(quote(name)).append(": ").append(value);
    }

    // JSON has no NaN or infinity: a figure without a value is null.
    private static String number(double value) {
        return Double.isFinite(value) ? Double.toString(value) : "null";
    }

    // Names here are of this program's making (algorithm, store and reason names), but escape anyway.
    private static String quote(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                quoted.append('\\').append(c);
            } else if (c < 0x20) {
                quoted.append(String.format("\\u%04x", (int) c));
            } else {
                quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }
}
