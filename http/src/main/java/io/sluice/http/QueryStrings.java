package io.sluice.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/** Reads a parameter from a raw query string, for servers whose API would otherwise read a form body. */
public final class QueryStrings {

    private QueryStrings() {
    }

    /**
     * The decoded value of the first {@code name=value} pair of {@code query} named {@code name},
     * or {@code null}; a pair without {@code =} has the empty value.
     */
    public static @Nullable String first(String query, String name) {
        for (String pair : query.split("&")) {
            int equals = pair.indexOf('=');
            String key = equals < 0 ? pair : pair.substring(0, equals);
            if (decode(key).equals(name)) {
                return equals < 0 ? "" : decode(pair.substring(equals + 1));
            }
        }
        return null;
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            // A malformed escape is taken as written, not as an error of the request.
            return text;
        }
    }
}
