package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.Store;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request path is matched as the server behind the limiter reads it, so that no spelling
 * of a path dodges the rule of the path it means.
 */
class RequestPathTest {

    static final PolicyConfig POLICY = PolicyConfig.parse("""
            tiers:
              - name: pro
                limits: [{name: per-second, algorithm: gcra, permits: 100, period: 1s}]
            api-keys:
              keys: [{key: pro-key, tier: pro}]
            endpoints:
              - {name: reports, path: /v1/reports, cost: 10}
              - {name: one-file, path: /v1/files/*, cost: 5}
              - {name: item-a, path: "/v1/{kind}/{id}/a", cost: 4}
              - {name: deep-files, path: "/v1/files/**", cost: 3}
              - {name: any-v1, path: "/v1/**", cost: 2}
            """, "sluice.yaml");

    /** The endpoint rule that the request's path hits, or "none". */
    static String ruleOf(String path) {
        PolicyConfig.Resolution resolution = POLICY.resolve(ApiRequest.of("pro-key", "192.0.2.1", "POST", path),
                Optional.of("pro"));
        return resolution.endpoint() == null ? "none" : resolution.endpoint().name();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "/v1/reports",
        // path parameters, in any segment
        "/v1/reports;jsessionid=abc", "/v1;v=2/reports", "/v1/reports;a=1;b=2", "/v1/reports;", "/;x/v1/reports",
        // percent-encoded unreserved characters, either case of hex
        "/v1/%72eports", "/v1/%72%65%70%6F%72%74%73", "/%76%31/reports", "/v1/report%73", "/v1/report%73;x=%2F",
        // dot segments, also encoded and with parameters
        "/v1/./reports", "/v1/x/../reports", "/v1/%2e/reports", "/v1/x/%2e%2e/reports", "/v1/x/%2E%2E/reports",
        "/v1/x/.%2e/reports", "/v1/x/..;p=1/reports", "/v1/x/y/../../reports", "/../v1/reports", "/./v1/reports",
        // double and trailing slashes
        "//v1///reports", "/v1/reports/", "/v1/reports//", "/v1/reports/;x",
        // an encoded slash, which some servers decode to a separator
        "/v1%2Freports", "/v1%2freports", "/v1/x%2F..%2Freports",
        // a backslash, encoded or not, which some servers take for a separator
        "/v1\\reports", "/v1%5creports", "/v1%5Cx\\..%2Freports",
        // query and fragment
        "/v1/reports?next=/v1/other", "/v1/reports#top", "/v1/reports;p?q=1"})
    void everySpellingOfThePathHitsItsRule(String path) {
        assertThat(ruleOf(path)).isEqualTo("reports");
    }

    @Test
    void aPathParameterNoLongerSkipsTheEndpointsCost() {
        VirtualClock clock = new VirtualClock(1_700_000_000_000_000L);
        try (Store store = LocalStore.builder().clockForTesting(clock).build()) {
            PolicyLimiter limiter = PolicyLimiter.builder().config(POLICY).store(store).build();

            PolicyDecision decision = limiter.decide(
                    ApiRequest.of("pro-key", "192.0.2.1", "POST", "/v1/reports;jsessionid=abc"));

            assertThat(decision.endpoint()).contains("reports");
            assertThat(decision.cost()).isEqualTo(10);
            assertThat(decision.decision().orElseThrow().remaining()).isEqualTo(100 - 10);
        }
    }

    @Test
    void anEncodedSlashKeptInItsSegmentStillHitsTheRuleOfThatSegment() {
        assertThat(PathPattern.normalize("/v1/files/a%2fb")).containsExactly("v1", "files", "a%2Fb");
        // Read with the slash kept, it is one file; decoded, it is deeper: the first rule either way applies.
        assertThat(ruleOf("/v1/files/a%2Fb")).isEqualTo("one-file");
        assertThat(ruleOf("/v1/files/a/b")).isEqualTo("deep-files");
    }

    @Test
    void otherEncodedCharactersStayEncodedAndDoNotMatchTheirDecodedSpelling() {
        // A server decodes %3B to a ';' inside the segment: "reports;x" is no "reports".
        assertThat(PathPattern.normalize("/v1/reports%3bx")).containsExactly("v1", "reports%3Bx");
        assertThat(ruleOf("/v1/reports%3bx")).isEqualTo("any-v1");
    }

    @Test
    void literalsAreCaseSensitiveAsServersRouteThem() {
        assertThat(ruleOf("/V1/Reports")).isEqualTo("none");
        assertThat(ruleOf("/v1/Reports")).isEqualTo("any-v1");
    }

    @Test
    void aPatternWithAPathParameterIsRefusedAsItWouldNeverMatch() {
        assertThatThrownBy(() -> PathPattern.parse("/v1/reports;v=2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("';' starts a path parameter");
    }

    @Provide
    Arbitrary<List<String>> paths() {
        return Arbitraries.of("v1", "reports", "files", "a", "b", "42", "x-y", "~u", "a.b").list().ofMaxSize(5);
    }

    @Property(tries = 1_000)
    void anySpellingOfAPathNormalizesToItAndHitsTheSameRule(@ForAll("paths") List<String> path,
                                                            @ForAll long seed) {
        String canonical = "/" + String.join("/", path);
        String variant = variant(path, new Random(seed));

        assertThat(PathPattern.normalize(variant)).as(variant).isEqualTo(path);
        assertThat(ruleOf(variant)).as(variant).isEqualTo(ruleOf(canonical));
    }

    /** What some servers take for a separator inside a segment. */
    static final List<String> OTHER_SEPARATORS = List.of("%2F", "%2f", "%5C", "%5c", "\\");

    @Property(tries = 1_000)
    void anEncodedSlashOrABackslashNeverMovesAPathToALaterRule(@ForAll("paths") List<String> path, @ForAll long seed) {
        if (path.size() < 2) {
            return;
        }
        Random random = new Random(seed);
        int joined = random.nextInt(path.size() - 1);
        StringBuilder variant = new StringBuilder();
        for (int i = 0; i < path.size(); i++) {
            variant.append(i == joined + 1 ? OTHER_SEPARATORS.get(random.nextInt(OTHER_SEPARATORS.size())) : "/")
                    .append(path.get(i));
        }
        String canonical = "/" + String.join("/", path);

        assertThat(ruleIndex(ruleOf(variant.toString()))).as(variant.toString())
                .isLessThanOrEqualTo(ruleIndex(ruleOf(canonical)));
    }

    private static int ruleIndex(String rule) {
        List<String> order = List.of("reports", "one-file", "item-a", "deep-files", "any-v1", "none");
        return order.indexOf(rule);
    }

    /** The path spelled differently, in every way a server still reads as the same path. */
    static String variant(List<String> path, Random random) {
        StringBuilder variant = new StringBuilder();
        for (String segment : path) {
            variant.append(detour(random));
            variant.append('/').append(encodeSome(segment, random)).append(parameter(random));
        }
        variant.append(detour(random));
        switch (random.nextInt(5)) {
            case 0 -> variant.append('/');
            case 1 -> variant.append("/;x=1");
            case 2 -> variant.append("?q=/v1/reports");
            case 3 -> variant.append("#/v1/reports");
            default -> { }
        }
        return variant.length() == 0 ? "/" : variant.toString();
    }

    private static String detour(Random random) {
        List<String> detours = List.of("", "", "", "/.", "/%2e", "/%2E", "/", "/x/..", "/x/%2e%2e", "/x/.%2E;p=1",
                "/x/y/../..", "/;z");
        return detours.get(random.nextInt(detours.size()));
    }

    private static String parameter(Random random) {
        List<String> parameters = List.of("", "", ";jsessionid=abc", ";", ";a=1;b=2", ";v=%2F");
        return parameters.get(random.nextInt(parameters.size()));
    }

    private static String encodeSome(String segment, Random random) {
        StringBuilder encoded = new StringBuilder();
        for (char c : segment.toCharArray()) {
            if (random.nextInt(3) == 0) {
                String hex = String.format("%02x", (int) c);
                encoded.append('%').append(random.nextBoolean() ? hex : hex.toUpperCase());
            } else {
                encoded.append(c);
            }
        }
        return encoded.toString();
    }

    @Test
    void variantsCoverEveryKindOfSpelling() {
        Random random = new Random(7);
        List<String> variants = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            variants.add(variant(List.of("v1", "reports"), random));
        }
        assertThat(variants).anyMatch(v -> v.contains(";jsessionid=")).anyMatch(v -> v.contains("%2e%2e"))
                .anyMatch(v -> v.contains("%7")).anyMatch(v -> v.contains("/."))
                .anyMatch(v -> v.endsWith("/")).anyMatch(v -> v.contains("?"));
    }
}
