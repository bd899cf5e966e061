package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class ClientKeysProperties {

    @Property(tries = 200)
    void ipv6AddressesShareAKeyExactlyWhenTheyShareThePrefix(@ForAll @Size(16) byte[] first,
                                                             @ForAll @Size(16) byte[] second,
                                                             @ForAll @IntRange(min = 1, max = 128) int prefix)
            throws Exception {
        first[0] = second[0] = 0x20; // global unicast, never IPv4-mapped
        String firstKey = ClientKeys.forAddress(InetAddress.getByAddress(first), 32, prefix);
        String secondKey = ClientKeys.forAddress(InetAddress.getByAddress(second), 32, prefix);
        assertThat(firstKey.equals(secondKey)).isEqualTo(samePrefix(first, second, prefix));
    }

    @Property(tries = 100)
    void aHostCannotLeaveItsSlash64ByRotatingAddresses(@ForAll @Size(8) byte[] interfaceId) throws Exception {
        byte[] address = new byte[16];
        byte[] network = {0x20, 0x01, 0x0d, (byte) 0xb8, 0, 1, 0, 2};
        System.arraycopy(network, 0, address, 0, 8);
        System.arraycopy(interfaceId, 0, address, 8, 8);
        assertThat(ClientKeys.forAddress(InetAddress.getByAddress(address), 32, 64))
                .isEqualTo("ip:2001:db8:1:2:0:0:0:0/64");
    }

    @Property(tries = 100)
    void apiKeysReachTheStoreOnlyAsAFixedLengthHash(@ForAll @StringLength(min = 1, max = 200) String apiKey) {
        String key = ClientKeys.forApiKey(apiKey);
        assertThat(key).startsWith("key:").hasSize(4 + 22).matches("key:[A-Za-z0-9_-]+");
        assertThat(ClientKeys.forApiKey(apiKey + "x")).isNotEqualTo(key);
    }

    @Test
    void aListedKeyHashedOnceHasTheStoreKeyOfAKeyHashedPerRequest() {
        PolicyConfig config = PolicyConfig.parse("""
                tiers:
                  - name: free
                    limits:
                      - {name: per-day, algorithm: fixed-window, permits: 10, period: 1d}
                api-keys:
                  keys:
                    - {key: listed-0123456789, tier: free}
                """, "test.yaml");
        // A fresh string per request, as a request's header gives it.
        String first = config.resolve(ApiRequest.of(new String("listed-0123456789"), "192.0.2.1", "GET", "/"),
                Optional.of("free")).clientKey();
        String again = config.resolve(ApiRequest.of(new String("listed-0123456789"), "192.0.2.1", "GET", "/"),
                Optional.of("free")).clientKey();
        assertThat(first).isEqualTo(ClientKeys.forApiKey("listed-0123456789")).isSameAs(again);
        // A key that only a resolver of one's own knows (not in the list) is hashed alike.
        assertThat(config.resolve(ApiRequest.of("resolved-elsewhere", "192.0.2.1", "GET", "/"),
                Optional.of("free")).clientKey()).isEqualTo(ClientKeys.forApiKey("resolved-elsewhere"));
    }

    @Test
    void unpairedSurrogatesDoNotMakeTwoKeysOne() {
        assertThat(ClientKeys.forApiKey("k\uD800")).isNotEqualTo(ClientKeys.forApiKey("k\uDC00"));
    }

    @Test
    void ipv4AddressesAndTheirMappedFormsShareAKey() throws Exception {
        assertThat(ClientKeys.forAddress(InetAddress.getByName("192.0.2.77"), 32, 64)).isEqualTo("ip:192.0.2.77");
        byte[] mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 192, 0, 2, 77};
        assertThat(ClientKeys.forAddress(Inet6Address.getByAddress(null, mapped, -1), 32, 64))
                .isEqualTo("ip:192.0.2.77");
        assertThat(ClientKeys.forAddress(InetAddress.getByName("192.0.2.77"), 24, 64)).isEqualTo("ip:192.0.2.0/24");
    }

    @Test
    void clientAddressesMustBeLiterals() {
        assertThat(ApiRequest.of(null, "[2001:db8::1]", "get", "/").clientIp().getHostAddress())
                .isEqualTo("2001:db8:0:0:0:0:0:1");
        assertThat(ApiRequest.of(null, "fe80::1%eth0", "GET", "/").clientIp().getHostAddress())
                .isEqualTo("fe80:0:0:0:0:0:0:1");
        for (String bad : new String[] {"localhost", "example.org", "999.1.1.1", "1.2.3", "::g"}) {
            assertThat(catchThrowable(() -> ApiRequest.of(null, bad, "GET", "/")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(bad);
        }
    }

    private static boolean samePrefix(byte[] first, byte[] second, int prefix) {
        for (int bit = 0; bit < prefix; bit++) {
            int mask = 0x80 >>> (bit % 8);
            if ((first[bit / 8] & mask) != (second[bit / 8] & mask)) {
                return false;
            }
        }
        return true;
    }
}
