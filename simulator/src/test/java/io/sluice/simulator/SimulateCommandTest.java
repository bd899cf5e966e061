package io.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.net.ServerSocket;
import java.io.StringWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SimulateCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine commandLine = new CommandLine(new SimulateCommand());
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        return commandLine.execute(args);
    }

    @Test
    void printsOneRowPerAlgorithmAndTheIdealsDefinition() {
        int exitCode = run("--shared", "--instances", "4", "--clients", "2", "--duration", "2s");

        assertThat(exitCode).as(err.toString()).isZero();
        assertThat(out.toString())
                .contains("4 gateway instances, one shared local store, round-robin balancer")
                .doesNotContain("store of its own")
                .contains("2 clients x 800 requests/s")
                .containsPattern("(?m)^fixed-window +[0-9,]+ +[0-9,]+ +[0-9,]+ +[-+][0-9.]+% +[0-9.]+x +[0-9,]+ +1\\.000$")
                .containsPattern("(?m)^sliding-log ")
                .containsPattern("(?m)^sliding-window-counter ")
                .containsPattern("(?m)^token-bucket ")
                .containsPattern("(?m)^gcra ")
                .contains("ideal = what one exact limiter would admit");
    }

    @Test
    void withoutAFleetOptionPrintsTheSharedStoreThenAStorePerInstance() {
        int exitCode = run("--algorithm", "token-bucket", "--instances", "4", "--clients", "2",
                "--duration", "2s");

        assertThat(exitCode).as(err.toString()).isZero();
        String output = out.toString();
        int shared = output.indexOf("4 gateway instances, one shared local store");
        int perInstance = output.indexOf("4 gateway instances, each with a local store of its own");
        assertThat(shared).isNotNegative().isLessThan(perInstance);
        assertThat(output.substring(perInstance)).containsPattern("(?m)^token-bucket .* [34]\\.[0-9]{3}x ");
    }

    @Test
    void leasingAdmitsTheIdealWithFewerStoreCalls() {
        // 90 requests/s on one instance, below the limit of 100: leased in batches of up to 10.
        int exitCode = run("--shared", "--algorithm", "fixed-window", "--instances", "1", "--clients", "2",
                "--rate", "90", "--duration", "2s", "--lease", "0.1");

        assertThat(exitCode).as(err.toString()).isZero();
        String output = out.toString();
        assertThat(output).contains("local quota leasing: batches of up to 0.1 of the smallest limit")
                .contains(" over      under  calls/req");
        // admitted = ideal, none over or under, and under 0.4 store calls per request.
        assertThat(output).containsPattern(
                "(?m)^fixed-window +[0-9,]+ +([0-9,]+) +\\1 +\\+0\\.00% +1\\.000x +0 +0 +0\\.[0-3][0-9]{2}$");
    }

    @Test
    void aLeaseShareOutsideZeroToOneIsRefused() {
        assertThat(run("--lease", "1.5")).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("--lease must be a share of the limit in (0, 1]").contains("1.5");
    }

    @Test
    void perInstanceAndSharedExcludeEachOther() {
        assertThat(run("--per-instance", "--shared")).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("--per-instance and --shared exclude each other");
    }

    @Test
    void theSameOptionsPrintTheSameOutput() {
        String[] args = {"--algorithm", "gcra,sliding-log", "--balancer", "random", "--clients", "2",
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
        "--outage        | 5s..2s       | an outage must end after it begins, at or after the start: 5000000us..2000000us",
        "--outage        | 2s           | '2s' is not an outage FROM..TO such as 2s..5s",
        "--outage        | 20s..30s     | --outage 20s..30s begins after the traffic ends at 10s",
        "--failure       | sideways     | unknown failure policy 'sideways', expected one of",
        "--also-limit    | 5            | '5' is not a limit [ALGORITHM:]PERMITS/PERIOD",
        "--also-limit    | leaky:5/1s   | leaky",
        "--also-limit    | 0/1s         | permits must be in 1..1000000000: 0",
        "--also-limit    | 100/1s       | the limit fixed-window:100/1s is given twice",
        "--store         | redis        | --store redis needs --redis URI",
        "--redis         | redis://127.0.0.1:6379 | --redis is for --store redis, not --store local",
    })
    void aBadOptionGivesTheUsageErrorNamingTheValue(String option, String value, String message) {
        int exitCode = run(option, value);

        assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains(message).contains("Usage: simulate");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void aRedisThatCannotBeReachedFailsTheCommandBeforeAnyOutput() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }

        int exitCode = run("--store", "redis", "--redis", "redis://127.0.0.1:" + closedPort);

        assertThat(exitCode).isEqualTo(CommandLine.ExitCode.SOFTWARE);
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString()).contains("simulate on the redis store failed")
                .contains("RedisConnectionException");
    }

    @Test
    void aStorePerInstanceIsForTheLocalStoreOnly() {
        int exitCode = run("--per-instance", "--store", "hazelcast");

        assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("--per-instance needs --store local");
    }

    @Test
    void aFurtherLimitBindsAndTheSharedStoreStillAdmitsTheIdeal() {
        // 150 per 10 s binds long before 100 per second does over 4 s: at most 150 per client.
        int exitCode = run("--shared", "--algorithm", "token-bucket", "--also-limit", "150/10s",
                "--instances", "4", "--clients", "2", "--duration", "4s");

        assertThat(exitCode).as(err.toString()).isZero();
        assertThat(out.toString())
                .contains("limit per client: 100 per 1s (burst 100 for token-bucket and gcra), "
                        + "and 150 per 10s (fixed-window)")
                .containsPattern("(?m)^token-bucket +[0-9,]+ +300 +300 +\\+0\\.00% +1\\.000x +0 +1\\.000$");
    }

    @Test
    void anOutagePrintsTheDecisionsInItByReason() {
        int exitCode = run("--shared", "--algorithm", "fixed-window", "--instances", "4", "--clients", "2",
                "--duration", "3s", "--outage", "1s..2s");

        assertThat(exitCode).as(err.toString()).isZero();
        assertThat(out.toString())
                .contains("outage: the store fails every call from 1s..2s, failure policy closed")
                .contains("during the outage 1s..2s (failure policy closed)")
                .containsPattern("(?m)^fixed-window +[0-9,]+ +0 +[0-9,]+  admitted none; "
                        + "denied STORE_UNAVAILABLE [0-9,]+; store back after [0-9]+us$");
    }

    @Test
    void aLimitTooLargeForTheExactSlidingWindowIsAUsageError() {
        int exitCode = run("--algorithm", "sliding-window-counter", "--permits", "20000");

        assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("the ideal of sliding-window-counter cannot be computed")
                .contains("20000");
    }

    @Test
    void tooManyRequestsForOneRunIsAUsageError() {
        int exitCode = run("--duration", "1d");

        assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("about 3,456,000,000 requests per algorithm");
    }
}
