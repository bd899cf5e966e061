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
        // Runs of characters that need nothing are appended whole, not a character at a time.
        int run = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= 0x20 && c <= 0x7e && c != '"' && c != '\\') {
                continue;
            }
            out.append(value, run, i);
            run = i + 1;
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else {
                out.append('?');
            }
        }
        out.append(value, run, value.length()).append('"');
    }

    /** A parameter {@code ;key=integer}; sf-integers have at most 15 digits, larger values are capped. */
    static void appendIntegerParameter(StringBuilder out, String key, long value) {
        out.append(';').append(key).append('=').append(Math.max(-999_999_999_999_999L,
                Math.min(999_999_999_999_999L, value)));
    }
}
