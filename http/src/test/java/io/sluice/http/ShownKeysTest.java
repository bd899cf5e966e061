package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class ShownKeysTest {

    private final ShownKeys shown = new ShownKeys();

    @Test
    void aKeyIsShownByItsFirstCharactersAndItsHashAndTheSameEveryTime() throws Exception {
        String key = "free-0123456789abcdef";
        String hex = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(key.getBytes(StandardCharsets.UTF_8)), 0, 6);

        assertThat(shown.of(key)).isEqualTo("key:free...#" + hex);
        // A request's key is a string of its own: the one kept is found by its value.
        assertThat(shown.of(new String(key))).isSameAs(shown.of(key));
        assertThat(shown.of("short")).startsWith("key:#").hasSize("key:#".length() + 12);
    }

    @Test
    void theKeysKeptStayWithinTheCapacity() {
        for (int i = 0; i <= ShownKeys.CAPACITY; i++) {
            shown.of("key-" + i);
        }

        assertThat(shown.size()).isBetween(1, ShownKeys.CAPACITY);
        assertThat(shown.of("key-0")).startsWith("key:#");
    }
}
