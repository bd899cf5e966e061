package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckConfigCommandTest {

    @TempDir
    Path dir;

    private final SluiceRun sluice = new SluiceRun();

    /** Writes {@code yaml} to a file named {@code name} in the test's directory. */
    private Path config(String name, String yaml) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, yaml, StandardCharsets.UTF_8);
        return file;
    }

    @Test
    void theExampleConfigIsUsable() {
        assertThat(sluice.run("check-config", "examples/sluice.yaml")).isZero();
        assertThat(sluice.out()).contains("examples/sluice.yaml: OK", "store local");
    }

    @Test
    void aBadFileIsReportedWithLinesAndExits1() throws Exception {
        Path file = config("bad.yaml", """
                store:
                  type: redis
                  uri: redis://x
                  timout: 5ms
                tiers:
                  - name: free
                    limits:
                      - name: per-second
                        algorithm: leaky-bucket
                        permits: 5
                        period: 1s
                      - name: per-day
                        algorithm: fixed-window
                        permits: -10
                        period: 1d
                """);

        assertThat(sluice.run("check-config", file.toString())).isEqualTo(1);
        // Every problem of the policy at once, with the gateway's, by line.
        assertThat(sluice.err()).containsSubsequence(file + ":4: unknown field 'timout'",
                file + ":9: unknown algorithm 'leaky-bucket'", file + ":14: ", "3 problems");
    }

    @Test
    void aBadLeasingSectionIsReportedAtItsLines() throws Exception {
        Path file = config("leasing.yaml", """
                leasing:
                  share: 0%
                  max-keys: many
                tiers:
                  - name: free
                    limits:
                      - name: per-second
                        algorithm: token-bucket
                        permits: 5
                        period: 1s
                """);

        assertThat(sluice.run("check-config", file.toString())).isEqualTo(1);
        assertThat(sluice.err()).containsSubsequence(file + ":2: share must be a share above 0% and at most 100%",
                file + ":3: max-keys must be a whole number: 'many'", "2 problems");
    }

    @Test
    void everyProblemOfTheGatewaysSectionsIsReportedAtOnce() throws Exception {
        Path file = config("sections.yaml", """
                store:
                  type: redis
                  uri: redis://x
                  timout: 5ms
                  instances: none
                  read-key-schema-1: yes
                http:
                  trusted-proxies: [10.0.0.0/40]
                  headers: [ietf, draft-6]
                  api-key-cookie: key
                tiers:
                  - name: free
                    limits:
                      - name: per-second
                        algorithm: leaky-bucket
                        permits: 5
                        period: 1s
                """);

        assertThat(sluice.run("check-config", file.toString())).isEqualTo(1);
        assertThat(sluice.err()).containsSubsequence(file + ":4: unknown field 'timout'",
                file + ":5: instances must be a positive number, got 'none'",
                file + ":6: read-key-schema-1 must be true or false, got 'yes'",
                file + ":8: ", "10.0.0.0/40",
                file + ":9: unknown header family 'draft-6'",
                file + ":10: unknown field 'api-key-cookie' in http",
                file + ":15: unknown algorithm 'leaky-bucket'", "7 problems");
    }
}
