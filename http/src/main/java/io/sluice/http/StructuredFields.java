package io.sluice.http;

/** Serializes the RFC 9651 structured-field values the rate-limit fields use. */
final class StructuredFields {

    private StructuredFields() {
    }

    /**
     * An sf-string: quoted, with {@code "} and {@code \} escaped. Characters outside printable
     * ASCII, which an sf-string cannot hold, become {@code ?} (limit names are ASCII).
     */
    static void appendString(StringBuilder out, String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                out.append('?');
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }

    /** A parameter {@code ;key=integer}; sf-integers have at most 15 digits, larger values are capped. */
    static void appendIntegerParameter(StringBuilder out, String key, long value) {
        out.append(';').append(key).append('=').append(Math.max(-999_999_999_999_999L,
                Math.min(999_999_999_999_999L, value)));
    }
}
