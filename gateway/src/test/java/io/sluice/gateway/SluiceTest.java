package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SluiceTest {

    private final SluiceRun sluice = new SluiceRun();

    @Test
    void simulateIsASubcommand() {
        int exitCode = sluice.run("simulate", "--shared", "--algorithm", "gcra", "--instances", "2", "--clients", "1",
                "--duration", "1s");

        assertThat(exitCode).as(sluice.err()).isZero();
        assertThat(sluice.out()).contains("2 gateway instances, one shared local store").containsPattern("(?m)^gcra ");
    }

    @Test
    void aBadSimulateOptionIsTheUsageErrorOfSluiceSimulate() {
        assertThat(sluice.run("simulate", "--balancer", "sideways")).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(sluice.err()).contains("unknown balancer 'sideways'").contains("Usage: sluice simulate");
    }

    @Test
    void noSubcommandIsAUsageError() {
        assertThat(sluice.run()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(sluice.err()).contains("Missing required subcommand").contains("simulate");
    }
}
