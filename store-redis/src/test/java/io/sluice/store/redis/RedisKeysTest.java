package io.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The hash tag is the one key schema 1 used, so that a rolling upgrade finds schema-1 keys. */
class RedisKeysTest {

    @Test
    void theHashTagIsTheFirst128BitsOfTheSha256InBase64url() throws Exception {
        Random random = new Random(42);
        List<String> identities = new java.util.ArrayList<>(List.of("", "a", "{", "\uD800", "203.0.113.7"));
        for (int i = 0; i < 1_000; i++) {
            char[] chars = new char[random.nextInt(100)];
            for (int j = 0; j < chars.length; j++) {
                chars[j] = (char) random.nextInt(Character.MAX_VALUE + 1);
            }
            identities.add(new String(chars));
        }
        for (String identity : identities) {
            ByteBuffer units = ByteBuffer.allocate(identity.length() * 2);
            identity.chars().forEach(c -> units.putChar((char) c));
            byte[] hash = Arrays.copyOf(MessageDigest.getInstance("SHA-256").digest(units.array()), 16);
            String expected = "{" + Base64.getUrlEncoder().withoutPadding().encodeToString(hash) + "}";
            assertThat(RedisKeys.hashTag(identity)).as(identity).isEqualTo(expected);
        }
        assertThat(RedisKeys.key("client")).isEqualTo("sluice" + RedisKeys.hashTag("client")).hasSize(30);
    }
}
