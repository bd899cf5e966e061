package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class PathPatternProperties {

    /** A pattern as a list of segments ("*", "{v0}", literals) and whether it ends in "**". */
    record GeneratedPattern(List<String> segments, boolean doubleStar) {
        String text() {
            String joined = "/" + String.join("/", segments);
            if (doubleStar) {
                return segments.isEmpty() ? "/**" : joined + "/**";
            }
            return joined;
        }

        /** The reference: the pattern as a regular expression over the segments joined, each after a '/'. */
        Pattern regex() {
            StringBuilder regex = new StringBuilder();
            for (String segment : segments) {
                regex.append("/").append(segment.equals("*") || segment.startsWith("{") ? "[^/]+"
                        : Pattern.quote(segment));
            }
            if (doubleStar) {
                regex.append("(/[^/]+)*");
            }
            return Pattern.compile(regex.toString());
        }

        /** A path that matches by construction. */
        List<String> matchingPath(Random random) {
            List<String> path = new ArrayList<>();
            for (String segment : segments) {
                path.add(segment.equals("*") || segment.startsWith("{") ? randomSegment(random) : segment);
            }
            if (doubleStar) {
                for (int extra = random.nextInt(4); extra > 0; extra--) {
                    path.add(randomSegment(random));
                }
            }
            return path;
        }
    }

    @Provide
    Arbitrary<GeneratedPattern> patterns() {
        Arbitrary<String> segment = Arbitraries.frequencyOf(
                Tuple.of(5, Arbitraries.of("v1", "v2", "reports", "a", "b", "x-y", "~u", "a.b")),
                Tuple.of(2, Arbitraries.just("*")),
                Tuple.of(2, Arbitraries.just("{id}")));
        return Combinators.combine(segment.list().ofMaxSize(4), Arbitraries.of(true, false))
                .as((segments, doubleStar) -> new GeneratedPattern(distinctVariables(segments), doubleStar));
    }

    @Property(tries = 300)
    void aPathBuiltFromThePatternMatchesIt(@ForAll("patterns") GeneratedPattern pattern, @ForAll long seed) {
        List<String> path = pattern.matchingPath(new Random(seed));
        assertThat(PathPattern.parse(pattern.text()).matches(path)).isTrue();
    }

    @Property(tries = 300)
    void matchingAgreesWithTheRegularExpressionReference(@ForAll("patterns") GeneratedPattern pattern,
                                                          @ForAll("paths") List<String> path) {
        String joined = path.isEmpty() ? "" : "/" + String.join("/", path);
        assertThat(PathPattern.parse(pattern.text()).matches(path))
                .isEqualTo(pattern.regex().matcher(joined).matches());
    }

    @Property(tries = 300)
    void changingALiteralSegmentBreaksTheMatch(@ForAll("patterns") GeneratedPattern pattern, @ForAll long seed) {
        Random random = new Random(seed);
        List<String> path = pattern.matchingPath(random);
        List<Integer> literals = new ArrayList<>();
        for (int i = 0; i < pattern.segments().size(); i++) {
            String segment = pattern.segments().get(i);
            if (!segment.equals("*") && !segment.startsWith("{")) {
                literals.add(i);
            }
        }
        if (literals.isEmpty()) {
            return;
        }
        int changed = literals.get(random.nextInt(literals.size()));
        path.set(changed, path.get(changed) + "z");
        assertThat(PathPattern.parse(pattern.text()).matches(path)).isFalse();
    }

    @Property(tries = 300)
    void dotSegmentsEmptySegmentsAndEncodedUnreservedCharactersDoNotChangeTheMatch(
            @ForAll("paths") List<String> path, @ForAll long seed) {
        Random random = new Random(seed);
        StringBuilder noisy = new StringBuilder();
        for (String segment : path) {
            switch (random.nextInt(4)) {
                case 0 -> noisy.append("/.");
                case 1 -> noisy.append("/detour/..");
                case 2 -> noisy.append("/");
                default -> { }
            }
            noisy.append('/').append(random.nextBoolean() ? percentEncodeFirst(segment) : segment);
        }
        noisy.append(random.nextBoolean() ? "?q=/a/b" : "");
        assertThat(PathPattern.normalize(noisy.toString())).isEqualTo(path);
    }

    @Provide
    Arbitrary<List<String>> paths() {
        return Arbitraries.of("v1", "v2", "reports", "a", "b", "x-y", "~u", "a.b", "42").list().ofMaxSize(6);
    }

    @Property(tries = 100)
    void dotDotNeverClimbsAboveTheRoot(@ForAll @IntRange(min = 1, max = 5) int ups) {
        assertThat(PathPattern.normalize("/..".repeat(ups) + "/v1/reports")).containsExactly("v1", "reports");
    }

    @Test
    void rootPatternMatchesOnlyTheRoot() {
        PathPattern root = PathPattern.parse("/");
        assertThat(root.matches(PathPattern.normalize("/"))).isTrue();
        assertThat(root.matches(PathPattern.normalize("/v1"))).isFalse();
        assertThat(PathPattern.parse("/**").matches(PathPattern.normalize("/"))).isTrue();
    }

    @Test
    void encodedSlashStaysInItsSegment() {
        assertThat(PathPattern.normalize("/v1/a%2fb")).containsExactly("v1", "a%2Fb");
        assertThat(PathPattern.parse("/v1/*").matches(PathPattern.normalize("/v1/a%2fb"))).isTrue();
    }

    @Test
    void badPatternsAreRejectedWithTheReason() {
        assertThatThrownBy(() -> PathPattern.parse("v1/reports")).hasMessageContaining("must start with '/'");
        assertThatThrownBy(() -> PathPattern.parse("/v1//reports")).hasMessageContaining("empty segment");
        assertThatThrownBy(() -> PathPattern.parse("/v1/**/x")).hasMessageContaining("only be the last segment");
        assertThatThrownBy(() -> PathPattern.parse("/v1/rep*")).hasMessageContaining("whole segment");
        assertThatThrownBy(() -> PathPattern.parse("/v1/{id")).hasMessageContaining("bad variable");
        assertThatThrownBy(() -> PathPattern.parse("/v1/{id}/{id}")).hasMessageContaining("appears twice");
        assertThatThrownBy(() -> PathPattern.parse("/v1/a b")).hasMessageContaining("not allowed");
        assertThatThrownBy(() -> PathPattern.parse("/v1/../x")).hasMessageContaining("never match");
    }

    private static List<String> distinctVariables(List<String> segments) {
        List<String> result = new ArrayList<>();
        int variable = 0;
        for (String segment : segments) {
            result.add(segment.equals("{id}") ? "{v" + variable++ + "}" : segment);
        }
        return result;
    }

    private static String percentEncodeFirst(String segment) {
        return String.format("%%%02x", (int) segment.charAt(0)) + segment.substring(1);
    }

    private static String randomSegment(Random random) {
        String[] choices = {"1", "abc", "v1", "reports", "x_y", "%2F"};
        return choices[random.nextInt(choices.length)];
    }
}
