package io.sluice.http;

/**
 * Writes JSON strings and string members, escaped as RFC 8259 says: for the problem bodies
 * and the gateway's admin answers, which need no JSON library.
 */
public final class Json {

    private Json() {
    }

    /** Appends {@code ,"name":"value"} (without the comma right after an opening brace or bracket). */
    public static void member(StringBuilder out, String name, String value) {
        if (out.charAt(out.length() - 1) != '{' && out.charAt(out.length() - 1) != '[') {
            out.append(',');
        }
        string(out, name);
        out.append(':');
        string(out, value);
    }

    /** Appends {@code value} as a JSON string. */
    public static void string(StringBuilder out, String value) {
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
