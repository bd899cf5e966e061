package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A check finds every problem of a file at once, each with its file, line and reason. */
class PolicyCheckTest {

    static final String MANY_PROBLEMS = """
            failure-policy: fail-sideways
            tiers:
              - name: free
                limits:
                  - {name: per-second, algorithm: leaky-bucket, permits: 10, period: 1s}
                  - {name: per-day, algorithm: fixed-window, permits: -5, period: 1 day}
              - name: pro
                limitz: []
            api-keys:
              keys:
                - {key: k-1, tier: free}
                - {key: k-2, tier: gold}
                - {key: k-1, tier: free}
            endpoints:
              - name: reports
                path: /v1/rep*
              - name: exports
                path: /v1/exports
                cost: 0
              - name: search
                path: /v1/search
                cost: 1000
                per-key: [{name: per-second, algorithm: gcra, permits: 10, period: 1s}]
            """;

    @Test
    void everyProblemIsFoundWithItsLine() {
        PolicyCheck check = PolicyConfig.check(MANY_PROBLEMS, "sluice.yaml");

        assertThat(check.valid()).isFalse();
        assertThat(check.config()).isEmpty();
        assertThat(check.problems()).extracting(PolicyProblem::line)
                .containsExactly(1, 5, 6, 6, 7, 8, 12, 13, 16, 19, 22);
        assertThat(check.problems()).extracting(PolicyProblem::toString).containsExactly(
                "sluice.yaml:1: failure-policy must be fail-open, fail-closed or fallback, got 'fail-sideways'",
                "sluice.yaml:5: unknown algorithm 'leaky-bucket', expected one of fixed-window, sliding-log, "
                        + "sliding-window-counter, token-bucket, gcra",
                "sluice.yaml:6: permits must not be negative: -5",
                "sluice.yaml:6: period must be a whole number and a unit (us, ms, s, m, h, d), such as 1s or 1d: "
                        + "'1 day'",
                "sluice.yaml:7: a tier needs the field 'limits'",
                "sluice.yaml:8: unknown field 'limitz' in a tier (expected one of [limits, name])",
                "sluice.yaml:12: no tier named 'gold' (tiers: [free, pro])",
                "sluice.yaml:13: duplicate API key (listed twice)",
                "sluice.yaml:16: '*' and {name} must be a whole segment, not part of 'rep*': '/v1/rep*'",
                "sluice.yaml:19: cost must be in 1..1000000000: 0",
                "sluice.yaml:22: cost 1000 of endpoint 'search' exceeds the capacity 10 of limit "
                        + "'endpoint.search.per-key.per-second': every such request would be denied");
    }

    @Test
    void loadingRejectsTheFileListingEveryProblem(@TempDir Path directory) throws Exception {
        Path file = directory.resolve("sluice.yaml");
        Files.writeString(file, MANY_PROBLEMS);

        PolicyConfigException e = catchThrowableOfType(PolicyConfigException.class, () -> PolicyConfig.load(file));

        assertThat(e.problems()).isEqualTo(PolicyConfig.check(file).problems()).hasSize(11);
        assertThat(e.getMessage().lines()).hasSize(11).allSatisfy(line -> assertThat(line).startsWith(file + ":"));
        assertThat(e.line()).isEqualTo(1);
    }

    @Test
    void aValidFileHasNoProblemAndGivesItsPolicy() {
        PolicyCheck check = PolicyConfig.check("""
                tiers:
                  - name: free
                    limits: [{name: per-second, algorithm: gcra, permits: 10, period: 1s}]
                """, "sluice.yaml");

        assertThat(check.valid()).isTrue();
        assertThat(check.problems()).isEmpty();
        assertThat(check.config()).hasValueSatisfying(config -> assertThat(config.source()).isEqualTo("sluice.yaml"));
    }

    @Test
    void aCostAboveSeveralCapacitiesNamesTheSmallestAndCountsTheOthers() {
        PolicyCheck check = PolicyConfig.check("""
                tiers:
                  - name: free
                    limits: [{name: per-second, algorithm: gcra, permits: 5, period: 1s}]
                  - name: pro
                    limits: [{name: per-second, algorithm: gcra, permits: 8, period: 1s}]
                endpoints:
                  - name: export
                    path: /v1/export
                    cost: 9
                    per-key: [{name: per-minute, algorithm: sliding-log, permits: 6, period: 1m}]
                  - name: cheap
                    path: /v1/cheap
                    cost: 5
                """, "sluice.yaml");

        assertThat(check.problems()).containsExactly(new PolicyProblem("sluice.yaml", 9,
                "cost 9 of endpoint 'export' exceeds the capacity 5 of limit 'tier.free.per-second' "
                        + "(and of 2 more limits): every such request would be denied"));
    }

    @Test
    void aNulCharacterIsReportedAtItsLine() {
        String yaml = """
                # a policy
                tiers:
                  - name: free
                    limits:
                      - name: per-second
                        algorithm: gcra
                        permits: 10
                        period: 1s
                  - name: pr\u0000o
                """;

        List<PolicyProblem> problems = PolicyConfig.check(yaml, "sluice.yaml").problems();

        assertThat(problems).hasSize(1);
        assertThat(problems.get(0).line()).isEqualTo(9);
        assertThat(problems.get(0).reason()).isEqualTo("YAML syntax: special characters are not allowed: "
                + "character U+0000");
    }

    @Test
    void aCharacterAfterASurrogatePairIsStillOnItsLine() {
        String yaml = "# \uD83D\uDE00\uD83D\uDE00\r\ntiers: []\r\n# \u0007\n";

        assertThat(PolicyConfig.check(yaml, "sluice.yaml").problems())
                .extracting(PolicyProblem::line).containsExactly(3);
    }

    @Test
    void aFileOverTheLimitSaysTheLimitAndWhatToDoInstead() {
        String tooLarge = "# " + "x".repeat(ConfigParser.MAX_CHARACTERS) + "\n";

        List<PolicyProblem> problems = PolicyConfig.check(tooLarge, "sluice.yaml").problems();

        assertThat(problems).containsExactly(new PolicyProblem("sluice.yaml", 0, "the file has "
                + tooLarge.length() + " characters, more than the limit of 8388608; list many API keys in a "
                + "TierResolver instead (docs/configuration.md)"));
    }

    @Test
    void aFileOverSnakeYamlsDefaultLimitIsRead() {
        int snakeYamlDefaultLimit = 3 * 1024 * 1024;
        StringBuilder yaml = new StringBuilder("""
                tiers:
                  - name: free
                    limits: [{name: per-second, algorithm: gcra, permits: 10, period: 1s}]
                api-keys:
                  keys:
                """);
        for (int k = 0; yaml.length() <= snakeYamlDefaultLimit; k++) {
            yaml.append("    - {key: \"a-fairly-long-api-key-").append(k).append("\", tier: free}\n");
        }

        assertThat(PolicyConfig.check(yaml.toString(), "sluice.yaml").valid()).isTrue();
    }

    @Test
    void aMessageNamesAtMostTenTiers() {
        StringBuilder yaml = new StringBuilder("tiers:\n");
        for (int t = 0; t < 25; t++) {
            yaml.append("  - {name: t").append(t).append(", limits: [{name: a, algorithm: gcra, permits: 1, "
                    + "period: 1s}]}\n");
        }
        yaml.append("api-keys:\n  keys: [{key: k, tier: gold}]\n");

        assertThat(PolicyConfig.check(yaml.toString(), "sluice.yaml").problems()).extracting(PolicyProblem::reason)
                .containsExactly("no tier named 'gold' (tiers: [t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, ... "
                        + "(15 more)])");
    }
}
