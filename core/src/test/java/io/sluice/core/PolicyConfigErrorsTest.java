package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every kind of bad policy file is rejected with its file, line and reason. */
class PolicyConfigErrorsTest {

    private static PolicyConfigException rejection(String yaml) {
        PolicyConfigException e = catchThrowableOfType(PolicyConfigException.class,
                () -> PolicyConfig.parse(yaml, "policy.yaml"));
        assertThat(e).as("rejected").isNotNull();
        assertThat(e.file()).isEqualTo("policy.yaml");
        assertThat(e.getMessage()).startsWith("policy.yaml:" + e.line() + ": " + e.reason());
        assertThat(e.getMessage()).isEqualTo(String.join("\n", e.problems().stream().map(Object::toString).toList()));
        assertThat(PolicyConfig.check(yaml, "policy.yaml").problems()).isEqualTo(e.problems());
        return e;
    }

    /** Asserts that {@code yaml} is rejected for {@code reason}, given at {@code line}. */
    private static void assertRejectedAt(String yaml, int line, String reason) {
        PolicyConfigException e = rejection(yaml);
        assertThat(e.line()).as("line").isEqualTo(line);
        assertThat(e.reason()).isEqualTo(reason);
    }

    @Test
    void yamlSyntax() {
        PolicyConfigException e = rejection("""
                tiers:
                  - name: free
                    limits: [ {name: a, algorithm: gcra
                """);
        assertThat(e.reason()).startsWith("YAML syntax: ");
        assertThat(e.line()).isEqualTo(4);
    }

    @Test
    void badIndentation() {
        PolicyConfigException e = rejection("""
                tiers:
                  - name: free
                   limits: []
                """);
        assertThat(e.reason()).startsWith("YAML syntax: ");
        assertThat(e.line()).isEqualTo(3);
    }

    @Test
    void unknownField() {
        PolicyConfigException e = rejection("""
                tiers:
                  - name: free
                    limits:
                      - name: per-second
                        algorithm: token-bucket
                        permitz: 10
                        period: 1s
                """);
        assertThat(e.problems()).containsExactly(
                new PolicyProblem("policy.yaml", 4, "a limit needs the field 'permits'"),
                new PolicyProblem("policy.yaml", 6, "unknown field 'permitz' in a limit (expected one of "
                        + "[algorithm, burst, failure-policy, name, period, permits, shadow])"));
    }

    @Test
    void unknownTopLevelField() {
        PolicyConfigException e = rejection("""
                shadow: false
                teirs: []
                """);
        assertThat(e.line()).isEqualTo(2);
        assertThat(e.reason()).startsWith("unknown field 'teirs' in the policy");
    }

    @Test
    void negativeLimit() {
        assertRejectedAt("""
                tiers:
                  - name: free
                    limits:
                      - name: per-second
                        algorithm: token-bucket
                        permits: -10
                        period: 1s
                """, 6, "permits must not be negative: -10");
    }

    @Test
    void negativeBurstAndZeroPermits() {
        assertThat(rejection(limit("permits: 10\n    period: 1s\n    burst: -1")).reason())
                .isEqualTo("burst must not be negative: -1");
        assertThat(rejection(limit("permits: 0\n    period: 1s")).reason())
                .isEqualTo("permits must be in 1..1000000000: 0");
    }

    @Test
    void unknownAlgorithm() {
        PolicyConfigException e = rejection("""
                anonymous:
                  limits:
                    - name: per-ip
                      algorithm: leaky-bucket
                      permits: 10
                      period: 1s
                """);
        assertThat(e.line()).isEqualTo(4);
        assertThat(e.reason()).contains("leaky-bucket");
    }

    @Test
    void duplicateRuleNames() {
        assertRejectedAt("""
                tiers:
                  - name: free
                    limits:
                      - {name: per-second, algorithm: gcra, permits: 10, period: 1s}
                      - {name: per-second, algorithm: fixed-window, permits: 10000, period: 1d}
                """, 5, "duplicate limit name 'per-second'");
        assertRejectedAt("""
                tiers:
                  - name: free
                    limits: [{name: a, algorithm: gcra, permits: 10, period: 1s}]
                  - name: free
                    limits: [{name: a, algorithm: gcra, permits: 10, period: 1s}]
                """, 4, "duplicate tier name 'free'");
        assertRejectedAt("""
                endpoints:
                  - {name: reports, path: /v1/reports}
                  - {name: reports, path: /v1/exports}
                """, 3, "duplicate endpoint name 'reports'");
    }

    @Test
    void duplicateField() {
        assertRejectedAt("""
                endpoints:
                  - name: reports
                    path: /v1/reports
                    path: /v1/exports
                """, 4, "field 'path' appears twice in an endpoint");
    }

    @Test
    void patternThatDoesNotParse() {
        assertRejectedAt("""
                endpoints:
                  - name: reports
                    method: POST
                    path: /v1/reports*
                    cost: 10
                """, 4, "'*' and {name} must be a whole segment, not part of 'reports*': "
                + "'/v1/reports*'");
    }

    @Test
    void badMethod() {
        PolicyConfigException e = rejection("""
                endpoints:
                  - name: reports
                    method: [GET, "PO ST"]
                    path: /v1/reports
                """);
        assertThat(e.line()).isEqualTo(3);
        assertThat(e.reason()).contains("'PO ST'");
    }

    @Test
    void badPeriod() {
        PolicyConfigException e = rejection(limit("permits: 10\n    period: 1 second"));
        assertThat(e.line()).isEqualTo(7);
        assertThat(e.reason()).startsWith("period must be a whole number and a unit");
        assertThat(rejection(limit("permits: 10\n    period: 400d")).reason()).isEqualTo(
                "period must be from 1us to 366d: '400d'");
    }

    @Test
    void burstOnAWindowAlgorithm() {
        PolicyConfigException e = rejection("""
                tiers:
                  - name: free
                    limits:
                      - name: per-day
                        algorithm: fixed-window
                        permits: 10000
                        period: 1d
                        burst: 20000
                """);
        assertThat(e.line()).isEqualTo(8);
        assertThat(e.reason()).contains("20000");
    }

    @Test
    void missingField() {
        assertRejectedAt("""
                tiers:
                  - name: free
                    limits:
                      - name: per-second
                        permits: 10
                        period: 1s
                """, 4, "a limit needs the field 'algorithm'");
    }

    @Test
    void wrongKindOfValue() {
        PolicyConfigException e = rejection("""
                tiers:
                  name: free
                """);
        assertThat(e.line()).isEqualTo(2);
        assertThat(e.reason()).isEqualTo("tiers: expected a list, got a mapping");
        assertThat(rejection("tiers:\n").reason()).isEqualTo("tiers: expected a list, got nothing");
    }

    @Test
    void badNames() {
        assertThat(rejection(limit("permits: 10\n    period: 1s").replace("per-second", "per.second")).reason())
                .startsWith("a name is a letter or digit");
        assertThat(rejection("""
                tiers:
                  - name: anonymous
                    limits: [{name: a, algorithm: gcra, permits: 10, period: 1s}]
                """).reason()).isEqualTo("'anonymous' is reserved and cannot name a tier");
        PolicyConfigException tooLong = rejection(limit("permits: 10\n    period: 1s")
                .replace("per-second", "x".repeat(60)));
        assertThat(tooLong.line()).isEqualTo(4);
        assertThat(tooLong.reason()).contains("limit name must be 1-64 characters");
    }

    @Test
    void keyOfAnUnknownTier() {
        assertRejectedAt(limit("permits: 10\n    period: 1s") + """
                api-keys:
                  keys:
                    - key: k-1
                      tier: gold
                """, 11, "no tier named 'gold' (tiers: [free])");
    }

    @Test
    void duplicateKey() {
        assertRejectedAt(limit("permits: 10\n    period: 1s") + """
                api-keys:
                  keys:
                    - {key: k-1, tier: free}
                    - {key: k-1, tier: free}
                """, 11, "duplicate API key (listed twice)");
    }

    @Test
    void unknownKeysRule() {
        assertThat(rejection(limit("permits: 10\n    period: 1s") + "api-keys:\n  unknown: gold\n").reason())
                .isEqualTo("unknown: expected 'reject', 'anonymous' or a tier name [free], got 'gold'");
        assertThat(rejection(limit("permits: 10\n    period: 1s") + "api-keys:\n  unknown: anonymous\n").reason())
                .isEqualTo("unknown keys are limited as anonymous callers, but there is no 'anonymous' section");
    }

    @Test
    void costAboveACapacity() {
        assertRejectedAt(limit("permits: 10\n    period: 1s") + """
                endpoints:
                  - name: export
                    path: /v1/export
                    cost: 50
                """, 11, "cost 50 of endpoint 'export' exceeds the capacity 10 of limit "
                + "'tier.free.per-second': every such request would be denied");
    }

    @Test
    void emptyFileAndBadFlag() {
        assertThat(rejection("").reason()).isEqualTo("the file is empty");
        assertThat(rejection("# only a comment\n").reason()).isEqualTo("the file is empty");
        PolicyConfigException flag = rejection("shadow: yes please\n");
        assertThat(flag.line()).isEqualTo(1);
        assertThat(flag.reason()).isEqualTo("expected true or false, got 'yes please'");
        assertThat(rejection("failure-policy: maybe\n").reason())
                .isEqualTo("failure-policy must be fail-open, fail-closed or fallback, got 'maybe'");
    }

    @Test
    void multipleDocuments() {
        assertThat(rejection("shadow: true\n---\nshadow: false\n").reason()).startsWith("YAML syntax: ");
    }

    @Test
    void loadNamesTheFileAndAMissingFile(@TempDir Path directory) throws Exception {
        Path file = directory.resolve("sluice.yaml");
        Files.writeString(file, "tiers: {}\n");
        PolicyConfigException e = catchThrowableOfType(PolicyConfigException.class, () -> PolicyConfig.load(file));
        assertThat(e.getMessage()).isEqualTo(file + ":1: tiers: expected a list, got a mapping");
        PolicyConfigException missing = catchThrowableOfType(PolicyConfigException.class,
                () -> PolicyConfig.load(directory.resolve("absent.yaml")));
        assertThat(missing.line()).isZero();
        assertThat(missing.reason()).startsWith("cannot read the file: ");
    }

    /** A tier "free" whose limit "per-second" (line 4, algorithm on line 5) has these fields from line 6. */
    private static String limit(String fields) {
        StringBuilder yaml = new StringBuilder("""
                tiers:
                  - name: free
                    limits:
                      - name: per-second
                        algorithm: token-bucket
                """);
        for (String line : fields.split("\n")) {
            yaml.append("        ").append(line.strip()).append('\n');
        }
        return yaml.toString();
    }
}
