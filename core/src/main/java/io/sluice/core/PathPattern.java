package io.sluice.core;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A path pattern of an endpoint rule, matched segment by segment against a normalized
 * request path. Syntax (docs/configuration.md): {@code /} followed by segments separated by
 * {@code /}; a segment is a literal, {@code {name}} (exactly one segment), {@code *}
 * (exactly one segment) or, as the last segment only, {@code **} (zero or more segments).
 * {@code /} alone matches the root. Immutable.
 */
final class PathPattern {

    private static final Pattern LITERAL = Pattern.compile("[A-Za-z0-9\\-._~!$&'()+,=:@%]+");
    private static final Pattern VARIABLE = Pattern.compile("\\{[A-Za-z_][A-Za-z0-9_]*}");
    /** What some servers take for a separator inside a segment: an encoded slash, a backslash, encoded or not. */
    private static final Pattern OTHER_SEPARATORS = Pattern.compile("%2F|%5C|\\\\");

    private final String text;
    /** Literal segments; {@code null} for a one-segment wildcard ({@code *} or a variable). */
    private final @Nullable String[] segments;
    private final boolean trailingDoubleStar;

    private PathPattern(String text, @Nullable String[] segments, boolean trailingDoubleStar) {
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
        List<@Nullable String> segments = new ArrayList<>();
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
            } else if (part.contains(";")) {
                throw new IllegalArgumentException("';' starts a path parameter, which is removed from a request "
                        + "path before matching, so segment '" + part + "' would never match: '" + text + "'");
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

    /** Whether the pattern matches the path in either of the ways a server may read it. */
    boolean matches(RequestPath path) {
        List<String> slashesDecoded = path.slashesDecoded();
        return matches(path.segments()) || (slashesDecoded != null && matches(slashesDecoded));
    }

    /**
     * A request path as the server behind the limiter reads it. Servers differ on an encoded
     * slash ({@code %2F}) and on a backslash ({@code \}, {@code %5C}): Jetty and Tomcat refuse
     * them by default, some servers keep them inside their segment, others (and proxies in
     * front) take them for a separator. Such a path is read both ways and matches a pattern
     * that either reading matches, so that no spelling of a separator dodges a rule.
     *
     * @param segments the path with encoded slashes and backslashes kept in their segment
     * @param slashesDecoded the path with them as separators; {@code null} when it has none
     */
    record RequestPath(List<String> segments, @Nullable List<String> slashesDecoded) {

        /** Normalizes a request path once, for matching against every pattern. */
        static RequestPath of(String path) {
            List<String> segments = normalize(path, false);
            return new RequestPath(segments, hasOtherSeparator(segments) ? normalize(path, true) : null);
        }

        /** A scan rather than {@link #OTHER_SEPARATORS}: this runs for every request. */
        private static boolean hasOtherSeparator(List<String> segments) {
            for (String segment : segments) {
                // Normalized segments spell the hex of what stays encoded in upper case.
                if (segment.indexOf('\\') >= 0 || segment.contains("%2F") || segment.contains("%5C")) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * Splits a request path into segments as a servlet container does before it routes
     * (Jakarta Servlet 6.0, 3.5.2): the query and fragment are dropped; in each segment, a
     * path parameter ({@code ;} and what follows, as in {@code ;jsessionid=...}) is removed;
     * percent-encoded unreserved characters are decoded (RFC 3986 6.2.2.2), so that
     * {@code %2e} is a dot; empty segments (a double or a trailing slash) are dropped; and
     * {@code .} and {@code ..} are resolved (RFC 3986 5.2.4). So
     * {@code /v1//x/..;p/%72eports;jsessionid=1/} is {@code /v1/reports}. An encoded slash
     * or a backslash stays in its segment; see {@link RequestPath} for the other reading.
     */
    static List<String> normalize(String path) {
        return normalize(path, false);
    }

    private static List<String> normalize(String path, boolean decodeSlashes) {
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
            int parameter = path.indexOf(';', start);
            int nameEnd = parameter >= 0 && parameter < segmentEnd ? parameter : segmentEnd;
            String segment = normalizeSegment(path.substring(start, nameEnd));
            if (decodeSlashes) {
                for (String part : OTHER_SEPARATORS.split(segment, -1)) {
                    append(result, part);
                }
            } else {
                append(result, segment);
            }
            start = segmentEnd + 1;
        }
        return result;
    }

    /** Appends a decoded segment to a path: {@code ..} removes the last, {@code .} and empty are no segment. */
    private static void append(List<String> path, String segment) {
        if (segment.equals("..")) {
            if (!path.isEmpty()) {
                path.remove(path.size() - 1);
            }
        } else if (!segment.isEmpty() && !segment.equals(".")) {
            path.add(segment);
        }
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
