package io.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class JsonReportTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private JsonNode runJson(String... args) throws Exception {
        CommandLine commandLine = new CommandLine(new SimulateCommand());
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        int exitCode = commandLine.execute(args);
        assertThat(exitCode).as(err.toString()).isZero();
        // The whole of standard output is one JSON document.
        return new ObjectMapper().readTree(out.toString());
    }

    @Test
    void oneObjectPerFleetAndAlgorithmWithItsSettingsAndFigures() throws Exception {
        JsonNode runs = runJson("--json", "--instances", "4", "--clients", "2", "--duration", "2s",
                "--algorithm", "token-bucket,sliding-window-counter", "--also-limit", "1000000/1d").get("runs");

        assertThat(runs).hasSize(4);
        assertThat(runs).extracting(run -> run.get("fleet").asText() + " " + run.get("algorithm").asText())
                .containsExactly("shared token-bucket", "shared sliding-window-counter",
                        "per-instance token-bucket", "per-instance sliding-window-counter");
        JsonNode shared = runs.get(0);
        assertThat(shared.get("store").asText()).isEqualTo("local");
        JsonNode settings = shared.get("settings");
        assertThat(settings.get("instances").asInt()).isEqualTo(4);
        assertThat(settings.get("balancer").asText()).isEqualTo("round-robin");
        assertThat(settings.get("clients").asInt()).isEqualTo(2);
        assertThat(settings.get("ratePerSecond").asDouble()).isEqualTo(800.0);
        assertThat(settings.get("durationMicros").asLong()).isEqualTo(2_000_000L);
        assertThat(settings.get("seed").asLong()).isEqualTo(1L);
        assertThat(settings.get("failure").asText()).isEqualTo("closed");
        assertThat(settings.get("blockCache").asBoolean()).isFalse();
        assertThat(settings.get("outage").isNull()).isTrue();
        JsonNode limits = settings.get("limits");
        assertThat(limits).hasSize(2);
        assertThat(limits.get(0).get("algorithm").asText()).isEqualTo("token-bucket");
        assertThat(limits.get(0).get("permits").asLong()).isEqualTo(100);
        assertThat(limits.get(0).get("periodMicros").asLong()).isEqualTo(1_000_000L);
        assertThat(limits.get(0).get("burst").asLong()).isEqualTo(100);
        assertThat(limits.get(1).get("algorithm").asText()).isEqualTo("fixed-window");
        assertThat(limits.get(1).get("permits").asLong()).isEqualTo(1_000_000L);
        assertThat(limits.get(1).get("periodMicros").asLong()).isEqualTo(86_400_000_000L);

        long offered = shared.get("offered").asLong();
        assertThat(offered).isPositive();
        assertThat(shared.get("admitted").asLong()).isEqualTo(shared.get("ideal").asLong());
        assertThat(shared.get("overAdmitted").asLong()).isZero();
        assertThat(shared.get("errorPercent").asDouble()).isZero();
        assertThat(shared.get("timesIdeal").asDouble()).isEqualTo(1.0);
        assertThat(shared.get("storeCalls").asLong()).isEqualTo(offered);
        assertThat(shared.get("storeCallsPerRequest").asDouble()).isEqualTo(1.0);
        assertThat(shared.get("unavailableOutsideOutage").asLong()).isZero();
        assertThat(shared.get("outage").isNull()).isTrue();

        JsonNode perInstance = runs.get(2);
        assertThat(perInstance.get("offered").asLong()).isEqualTo(offered);
        assertThat(perInstance.get("overAdmitted").asLong())
                .isEqualTo(perInstance.get("admitted").asLong() - perInstance.get("ideal").asLong())
                .isPositive();
    }

    @Test
    void anOutageReportsItsWindowAndTheDecisionsInItByReason() throws Exception {
        JsonNode run = runJson("--json", "--shared", "--instances", "4", "--clients", "2", "--duration", "3s",
                "--algorithm", "gcra", "--outage", "1s..2s", "--failure", "open", "--block-cache").get("runs").get(0);

        assertThat(run.get("settings").get("failure").asText()).isEqualTo("open");
        assertThat(run.get("settings").get("blockCache").asBoolean()).isTrue();
        assertThat(run.get("settings").get("outage").get("fromMicros").asLong()).isEqualTo(1_000_000L);
        assertThat(run.get("settings").get("outage").get("toMicros").asLong()).isEqualTo(2_000_000L);
        JsonNode outage = run.get("outage");
        long offered = outage.get("offered").asLong();
        assertThat(offered).isPositive();
        long admitted = outage.get("admitted").get("total").asLong();
        long denied = outage.get("denied").get("total").asLong();
        assertThat(admitted + denied).isEqualTo(offered);
        // Fail-open admits what the store cannot decide; the block cache still denies what it knows.
        assertThat(outage.get("admitted").get("byReason").get("STORE_UNAVAILABLE").asLong()).isEqualTo(admitted)
                .isGreaterThan(offered / 2);
        assertThat(outage.get("denied").get("byReason").path("LIMIT_EXCEEDED").asLong()).isEqualTo(denied);
        assertThat(outage.get("storeBackAfterMicros").asLong()).isNotNegative();
        assertThat(run.get("overAdmitted").asLong()).isPositive();
    }
}
