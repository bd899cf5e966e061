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

    /**
     * Appends {@code value} as a JSON string. The runs between characters to escape are
     * appended whole: a problem body's strings rarely hold one, and appending them one
     * character at a time showed in the profile of every 429.
     */
    public static void string(StringBuilder out, String value) {
        out.append('"');
        int run = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            out.append(value, run, i);
            run = i + 1;
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> out.append(String.format("\\u%04x", (int) c));
            }
        }
        out.append(value, run, value.length()).append('"');
    }
}
