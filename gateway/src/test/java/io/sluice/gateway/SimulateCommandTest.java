package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SimulateCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine commandLine = Sluice.commandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        return commandLine.execute(args);
    }

    @Test
    void printsOneRowPerAlgorithmAndTheIdealsDefinition() {
        int exitCode = run("simulate", "--shared", "--instances", "4", "--clients", "2", "--duration", "2s");

        assertThat(exitCode).as(err.toString()).isZero();
        assertThat(out.toString())
                .contains("4 gateway instances, one shared local store, round-robin balancer")
                .doesNotContain("store of its own")
                .contains("2 clients x 800 requests/s")
                .containsPattern("(?m)^fixed-window +[0-9,]+ +[0-9,]+ +[0-9,]+ +[-+][0-9.]+% +[0-9.]+x +1\\.000$")
                .containsPattern("(?m)^sliding-log ")
                .containsPattern("(?m)^sliding-window-counter ")
                .containsPattern("(?m)^token-bucket ")
                .containsPattern("(?m)^gcra ")
                .contains("ideal = what one exact limiter would admit");
    }

    @Test
    void withoutAFleetOptionPrintsTheSharedStoreThenAStorePerInstance() {
        int exitCode = run("simulate", "--algorithm", "token-bucket", "--instances", "4", "--clients", "2",
                "--duration", "2s");

        assertThat(exitCode).as(err.toString()).isZero();
        String output = out.toString();
        int shared = output.indexOf("4 gateway instances, one shared local store");
        int perInstance = output.indexOf("4 gateway instances, each with a local store of its own");
        assertThat(shared).isNotNegative().isLessThan(perInstance);
        assertThat(output.substring(perInstance)).containsPattern("(?m)^token-bucket .* [34]\\.[0-9]{3}x ");
    }

    @Test
    void perInstanceAndSharedExcludeEachOther() {
        assertThat(run("simulate", "--per-instance", "--shared")).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("--per-instance and --shared exclude each other");
    }

    @Test
    void theSameOptionsPrintTheSameOutput() {
        String[] args = {"simulate", "--algorithm", "gcra,sliding-log", "--balancer", "random", "--clients", "2",
            "--duration", "2s", "--seed", "5"};
        run(args);
        String first = out.toString();
        out.getBuffer().setLength(0);

        run(args);

        assertThat(out.toString()).isEqualTo(first)
                .containsPattern("(?m)^gcra ").doesNotContainPattern("(?m)^token-bucket ");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--balancer      | sideways     | unknown balancer 'sideways'",
        "--store         | memcached    | unknown store 'memcached'",
        "--algorithm     | leaky-bucket | leaky-bucket",
        "--period        | 1x           | '1x' is not a duration",
        "--duration      | 0s           | --duration must be a whole number of microseconds in 1us..366d: 0s",
        "--permits       | 0            | : 0",
        "--burst         | -3           | burst must be in 1..1000000000: -3",
        "--instances     | 0            | --instances must be in 1..10000: 0",
        "--clients       | many         | 'many'",
        "--rate          | -5           | --rate must be a positive number of requests per second: -5",
    })
    void aBadOptionGivesTheUsageErrorNamingTheValue(String option, String value, String message) {
        int exitCode = run("simulate", option, value);

        assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains(message).contains("Usage: sluice simulate");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void aLimitTooLargeForTheExactSlidingWindowIsAUsageError() {
        int exitCode = run("simulate", "--algorithm", "sliding-window-counter", "--permits", "20000");

        assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("the ideal of sliding-window-counter cannot be computed")
                .contains("20000");
    }

    @Test
    void tooManyRequestsForOneRunIsAUsageError() {
        int exitCode = run("simulate", "--duration", "1d");

        assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("about 3,456,000,000 requests per algorithm");
    }

    @Test
    void noSubcommandIsAUsageError() {
        assertThat(run()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("Missing required subcommand").contains("simulate");
    }
}
