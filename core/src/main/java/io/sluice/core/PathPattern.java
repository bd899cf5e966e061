package io.sluice.core;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A path pattern of an endpoint rule, matched segment by segment against a normalized
 * request path. Syntax (docs/configuration.md): {@code /} followed by segments separated by
 * {@code /}; a segment is a literal, {@code {name}} (exactly one segment), {@code *}
 * (exactly one segment) or, as the last segment only, {@code **} (zero or more segments).
 * {@code /} alone matches the root. Immutable.
 */
final class PathPattern {

    private static final Pattern LITERAL = Pattern.compile("[A-Za-z0-9\\-._~!$&'()+,;=:@%]+");
    private static final Pattern VARIABLE = Pattern.compile("\\{[A-Za-z_][A-Za-z0-9_]*}");

    private final String text;
    /** Literal segments; {@code null} for a one-segment wildcard ({@code *} or a variable). */
    private final String[] segments;
    private final boolean trailingDoubleStar;

    private PathPattern(String text, String[] segments, boolean trailingDoubleStar) {
        this.text = text;
        this.segments = segments;
        this.trailingDoubleStar = trailingDoubleStar;
    }

    /**
     * Parses a pattern.
     *
     * @throws IllegalArgumentException saying what is wrong with the pattern
     */
    static PathPattern parse(String text) {
        if (text.isEmpty() || text.charAt(0) != '/') {
            throw new IllegalArgumentException("path pattern must start with '/': '" + text + "'");
        }
        if (text.equals("/")) {
            return new PathPattern(text, new String[0], false);
        }
        String[] parts = text.substring(1).split("/", -1);
        List<String> segments = new ArrayList<>();
        Set<String> variables = new HashSet<>();
        boolean doubleStar = false;
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            if (part.isEmpty()) {
                throw new IllegalArgumentException("path pattern has an empty segment: '" + text + "'");
            }
            if (part.equals("**")) {
                if (i != parts.length - 1) {
                    throw new IllegalArgumentException("'**' may only be the last segment: '" + text + "'");
                }
                doubleStar = true;
            } else if (part.equals("*")) {
                segments.add(null);
            } else if (part.startsWith("{")) {
                if (!VARIABLE.matcher(part).matches()) {
                    throw new IllegalArgumentException("bad variable segment '" + part
                            + "' (expected {name}, a letter or '_' then letters, digits, '_'): '" + text + "'");
                }
                if (!variables.add(part)) {
                    throw new IllegalArgumentException("variable " + part + " appears twice: '" + text + "'");
                }
                segments.add(null);
            } else if (part.contains("*") || part.contains("{") || part.contains("}")) {
                throw new IllegalArgumentException("'*' and {name} must be a whole segment, not part of '"
                        + part + "': '" + text + "'");
            } else if (!LITERAL.matcher(part).matches()) {
                throw new IllegalArgumentException("segment '" + part
                        + "' has a character not allowed in a path: '" + text + "'");
            } else if (part.equals(".") || part.equals("..")) {
                throw new IllegalArgumentException("'.' and '..' segments never match a normalized path: '"
                        + text + "'");
            } else {
                segments.add(normalizeSegment(part));
            }
        }
        return new PathPattern(text, segments.toArray(new String[0]), doubleStar);
    }

    /** The pattern as written. */
    String text() {
        return text;
    }

    /** Whether the pattern matches a path already split by {@link #normalize(String)}. */
    boolean matches(List<String> pathSegments) {
        int size = segments.length;
        if (trailingDoubleStar ? pathSegments.size() < size : pathSegments.size() != size) {
            return false;
        }
        for (int i = 0; i < size; i++) {
            String expected = segments[i];
            if (expected != null && !expected.equals(pathSegments.get(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Splits a request path into normalized segments: the query and fragment are dropped,
     * percent-encoded unreserved characters are decoded (RFC 3986 6.2.2.2), empty segments
     * are dropped, and {@code .} and {@code ..} are resolved (RFC 3986 5.2.4), so that
     * {@code /v1//a/../reports} and {@code /v1/%72eports} are {@code /v1/reports}, as the
     * server behind the gateway would see them.
     */
    static List<String> normalize(String path) {
        int end = path.length();
        int query = path.indexOf('?');
        if (query >= 0) {
            end = query;
        }
        int fragment = path.indexOf('#');
        if (fragment >= 0 && fragment < end) {
            end = fragment;
        }
        List<String> result = new ArrayList<>();
        int start = 0;
        while (start <= end) {
            int slash = path.indexOf('/', start);
            int segmentEnd = slash < 0 || slash > end ? end : slash;
            String segment = normalizeSegment(path.substring(start, segmentEnd));
            if (segment.equals("..")) {
                if (!result.isEmpty()) {
                    result.remove(result.size() - 1);
                }
            } else if (!segment.isEmpty() && !segment.equals(".")) {
                result.add(segment);
            }
            start = segmentEnd + 1;
        }
        return result;
    }

    /** Decodes percent-encoded unreserved characters and upper-cases the hex of the others. */
    private static String normalizeSegment(String segment) {
        if (segment.indexOf('%') < 0) {
            return segment;
        }
        StringBuilder out = new StringBuilder(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '%' && i + 2 < segment.length() && isHex(segment.charAt(i + 1))
                    && isHex(segment.charAt(i + 2))) {
                char decoded = (char) Integer.parseInt(segment.substring(i + 1, i + 3), 16);
                if (isUnreserved(decoded)) {
                    out.append(decoded);
                } else {
                    out.append('%').append(Character.toUpperCase(segment.charAt(i + 1)))
                            .append(Character.toUpperCase(segment.charAt(i + 2)));
                }
                i += 2;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean isUnreserved(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~';
    }

    private static boolean isHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    @Override
    public String toString() {
        return text;
    }
}
