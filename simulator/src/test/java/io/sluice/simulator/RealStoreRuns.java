package io.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * Short simulations of the mission's tier (100 per second, burst 100, and 1,000,000 per day)
 * on 20 instances sharing a real store, through the command and its JSON, for the store ITs.
 */
final class RealStoreRuns {

    private static final String[] TIER = {"--json", "--shared", "--instances", "20", "--clients", "2",
        "--rate", "400", "--duration", "2s", "--permits", "100", "--period", "1s", "--burst", "100",
        "--also-limit", "1000000/1d"};

    private RealStoreRuns() {
    }

    /** Runs {@code simulate} with the tier's options, then {@code storeOptions} and {@code more}. */
    static JsonNode simulate(List<String> storeOptions, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of(TIER));
        args.addAll(storeOptions);
        args.addAll(List.of(more));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = new CommandLine(new SimulateCommand());
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        assertThat(commandLine.execute(args.toArray(String[]::new))).as(err.toString()).isZero();
        return new ObjectMapper().readTree(out.toString()).get("runs");
    }

    /** The targets: no over-admission, the ideal within 1% (exactly, for the exact algorithms), one call per request. */
    static void assertAccurate(List<String> storeOptions) throws Exception {
        JsonNode runs = simulate(storeOptions, "--algorithm", "token-bucket,gcra,fixed-window,sliding-log");

        assertThat(runs).hasSize(4);
        for (JsonNode run : runs) {
            String store = storeOptions.get(1);
            assertThat(run.get("store").asText()).isEqualTo(store);
            assertThat(run.get("overAdmitted").asLong()).as("%s", run).isZero();
            assertThat(run.get("admitted").asLong()).as("%s", run).isEqualTo(run.get("ideal").asLong());
            assertThat(run.get("storeCallsPerRequest").asDouble()).as("%s", run).isEqualTo(1.0);
            assertThat(run.get("unavailableOutsideOutage").asLong()).as("%s", run).isZero();
        }
    }

    /**
     * Fail-closed denies every request of the outage, and every instance uses the store again
     * within 1 s of its return (its breaker's wait, 500 ms of virtual time, and the next request).
     */
    static void assertOutageFailsClosed(List<String> storeOptions) throws Exception {
        JsonNode run = simulate(storeOptions, "--algorithm", "token-bucket", "--outage", "500ms..1500ms",
                "--failure", "closed").get(0);

        JsonNode outage = run.get("outage");
        assertThat(outage.get("offered").asLong()).isPositive();
        assertThat(outage.get("admitted").get("total").asLong()).isZero();
        assertThat(outage.get("denied").get("byReason").get("STORE_UNAVAILABLE").asLong())
                .isEqualTo(outage.get("offered").asLong());
        assertThat(outage.get("storeBackAfterMicros").asLong()).isBetween(0L, 1_000_000L);
        assertThat(run.get("overAdmitted").asLong()).isZero();
    }

    /**
     * The fallback admits, during a 1 s outage, at most what the limit allows the fleet (each of
     * 20 instances a share of 5 per second, burst 5: per client the burst of 100 plus 100), and
     * no less than the burst.
     */
    static void assertOutageFallsBack(List<String> storeOptions) throws Exception {
        JsonNode run = simulate(storeOptions, "--algorithm", "token-bucket", "--outage", "500ms..1500ms",
                "--failure", "fallback").get(0);

        JsonNode outage = run.get("outage");
        long admitted = outage.get("admitted").get("total").asLong();
        assertThat(outage.get("admitted").get("byReason").get("FALLBACK").asLong()).isEqualTo(admitted);
        assertThat(outage.get("denied").get("byReason").get("FALLBACK").asLong())
                .isEqualTo(outage.get("denied").get("total").asLong());
        assertThat(admitted).isBetween(2 * 100L, 2 * 200L);
        assertThat(outage.get("storeBackAfterMicros").asLong()).isBetween(0L, 1_000_000L);
    }
}
