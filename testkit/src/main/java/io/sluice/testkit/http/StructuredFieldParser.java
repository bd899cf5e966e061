package io.sluice.testkit.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict parser of RFC 9651 structured-field Lists of bare Items (strings, tokens, integers,
 * booleans) with parameters: what the rate-limit fields of draft-ietf-httpapi-ratelimit-headers
 * use. Tests check with it that a server's fields are valid, not merely that they look right.
 * Anything outside that subset, or invalid, is an {@link IllegalArgumentException} naming where.
 */
public final class StructuredFieldParser {

    /** One list member: its value (String for sf-string and token, Long, Boolean) and its parameters. */
    public record Item(Object value, Map<String, Object> parameters) {
    }

    private final String input;
    private int position;

    private StructuredFieldParser(String input) {
        this.input = input;
    }

    /** Parses a List field value. */
    public static List<Item> parseList(String field) {
        return new StructuredFieldParser(field).list();
    }

    private List<Item> list() {
        List<Item> members = new ArrayList<>();
        skipSpaces();
        while (position < input.length()) {
            members.add(item());
            skipOws();
            if (position == input.length()) {
                return members;
            }
            expect(',');
            skipOws();
            if (position == input.length()) {
                throw fail("trailing comma");
            }
        }
        return members;
    }

    private Item item() {
        Object value = bareItem();
        Map<String, Object> parameters = new LinkedHashMap<>();
        while (position < input.length() && input.charAt(position) == ';') {
            position++;
            skipSpaces();
            String key = key();
            Object parameterValue = Boolean.TRUE;
            if (position < input.length() && input.charAt(position) == '=') {
                position++;
                parameterValue = bareItem();
            }
            parameters.put(key, parameterValue);
        }
        return new Item(value, parameters);
    }

    private Object bareItem() {
        if (position >= input.length()) {
            throw fail("an item expected");
        }
        char c = input.charAt(position);
        if (c == '"') {
            return string();
        }
        if (c == '-' || Character.isDigit(c)) {
            return integer();
        }
        if (c == '?') {
            position++;
            char b = next();
            if (b != '0' && b != '1') {
                throw fail("boolean must be ?0 or ?1");
            }
            return b == '1';
        }
        if (Character.isLetter(c) && c < 128 || c == '*') {
            return token();
        }
        throw fail("unsupported or invalid item starting with '" + c + "'");
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = next();
            if (c == '\\') {
                char escaped = next();
                if (escaped != '"' && escaped != '\\') {
                    throw fail("invalid escape \\" + escaped);
                }
                out.append(escaped);
            } else if (c == '"') {
                return out.toString();
            } else if (c < 0x20 || c > 0x7e) {
                throw fail("character outside printable ASCII in a string");
            } else {
                out.append(c);
            }
        }
    }

    private long integer() {
        int start = position;
        if (input.charAt(position) == '-') {
            position++;
        }
        int digits = position;
        while (position < input.length() && Character.isDigit(input.charAt(position))) {
            position++;
        }
        if (position == digits || position - digits > 15) {
            throw fail("an integer has 1 to 15 digits");
        }
        if (position < input.length() && input.charAt(position) == '.') {
            throw fail("decimals are outside the subset this parser reads");
        }
        return Long.parseLong(input.substring(start, position));
    }

    private String token() {
        int start = position;
        position++;
        while (position < input.length() && isTokenChar(input.charAt(position))) {
            position++;
        }
        return input.substring(start, position);
    }

    private String key() {
        int start = position;
        if (position >= input.length() || !(Character.isLowerCase(input.charAt(position)) || input.charAt(position) == '*')) {
            throw fail("a key starts with a lower-case letter or *");
        }
        while (position < input.length()) {
            char c = input.charAt(position);
            if (!(c >= 'a' && c <= 'z' || Character.isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*')) {
                break;
            }
            position++;
        }
        return input.substring(start, position);
    }

    private static boolean isTokenChar(char c) {
        return c > 0x20 && c < 0x7f && "\"(),;<=>?@[\\]{}".indexOf(c) < 0 || c == ':' || c == '/';
    }

    private void skipSpaces() {
        while (position < input.length() && input.charAt(position) == ' ') {
            position++;
        }
    }

    private void skipOws() {
        while (position < input.length() && (input.charAt(position) == ' ' || input.charAt(position) == '\t')) {
            position++;
        }
    }

    private char next() {
        if (position >= input.length()) {
            throw fail("unexpected end");
        }
        return input.charAt(position++);
    }

    private void expect(char c) {
        if (next() != c) {
            position--;
            throw fail("'" + c + "' expected");
        }
    }

    private IllegalArgumentException fail(String reason) {
        return new IllegalArgumentException("not a valid structured field at " + position + " (" + reason + "): "
                + input);
    }
}
