package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SluiceTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine commandLine = Sluice.commandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        return commandLine.execute(args);
    }

    @Test
    void simulateIsASubcommand() {
        int exitCode = run("simulate", "--shared", "--algorithm", "gcra", "--instances", "2", "--clients", "1",
                "--duration", "1s");

        assertThat(exitCode).as(err.toString()).isZero();
        assertThat(out.toString()).contains("2 gateway instances, one shared local store").containsPattern("(?m)^gcra ");
    }

    @Test
    void aBadSimulateOptionIsTheUsageErrorOfSluiceSimulate() {
        assertThat(run("simulate", "--balancer", "sideways")).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("unknown balancer 'sideways'").contains("Usage: sluice simulate");
    }

    @Test
    void noSubcommandIsAUsageError() {
        assertThat(run()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("Missing required subcommand").contains("simulate");
    }
}
