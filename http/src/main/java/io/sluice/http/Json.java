package io.sluice.http;

/** Writes the few JSON values the problem bodies need (strings, escaped as RFC 8259 says). */
final class Json {

    private Json() {
    }

    /** Appends {@code ,"name":"value"} (without the comma after an opening brace). */
    static void member(StringBuilder out, String name, String value) {
        if (out.charAt(out.length() - 1) != '{') {
            out.append(',');
        }
        string(out, name);
        out.append(':');
        string(out, value);
    }

    static void string(StringBuilder out, String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
