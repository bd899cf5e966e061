package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClientIdentityTest {

    private final ClientIdentity behindProxies = ClientIdentity.custom()
            .trustedProxies(List.of("10.0.0.0/8", "2001:db8::/32", "192.0.2.7")).build();

    @Test
    void theAddressIsThePeersWhenNoProxyIsTrusted() {
        TestRequest request = TestRequest.get("/", "203.0.113.9").header("X-Forwarded-For", "198.51.100.1");

        assertThat(ClientIdentity.ofDefaults().clientAddress(request).getHostAddress()).isEqualTo("203.0.113.9");
    }

    @Test
    void aSpoofedHeaderFromAnUntrustedPeerIsIgnored() {
        TestRequest xff = TestRequest.get("/", "203.0.113.9").header("X-Forwarded-For", "198.51.100.1");
        TestRequest forwarded = TestRequest.get("/", "203.0.113.9").header("Forwarded", "for=198.51.100.1");

        assertThat(behindProxies.clientAddress(xff).getHostAddress()).isEqualTo("203.0.113.9");
        assertThat(behindProxies.clientAddress(forwarded).getHostAddress()).isEqualTo("203.0.113.9");
    }

    @Test
    void behindTrustedProxiesTheRightmostUntrustedAddressIsTheClient() {
        // The client forged the first entry; the trusted proxies appended the rest.
        TestRequest request = TestRequest.get("/", "10.0.0.2")
                .header("X-Forwarded-For", "1.2.3.4, 198.51.100.23")
                .header("X-Forwarded-For", "10.1.1.1");

        assertThat(behindProxies.clientAddress(request).getHostAddress()).isEqualTo("198.51.100.23");
    }

    @Test
    void forwardedWinsOverXForwardedForAndItsQuotedIpv6NodesAndPortsAreRead() {
        TestRequest request = TestRequest.get("/", "192.0.2.7")
                .header("X-Forwarded-For", "198.51.100.99")
                .header("Forwarded", "for=\"[2001:db9::17]:4711\";proto=https, For=\"[2001:db8::1]\"");

        assertThat(behindProxies.clientAddress(request).getHostAddress()).isEqualTo("2001:db9:0:0:0:0:0:17");
    }

    @Test
    void aNodeThatIsNotAnAddressEndsTheWalkAtTheProxyThatWroteIt() {
        TestRequest request = TestRequest.get("/", "10.0.0.2").header("X-Forwarded-For", "198.51.100.1, unknown, 10.9.9.9");

        assertThat(behindProxies.clientAddress(request).getHostAddress()).isEqualTo("10.9.9.9");
    }

    @Test
    void onlyTrustedHopsLeaveTheLeftmost() {
        TestRequest request = TestRequest.get("/", "10.0.0.2").header("X-Forwarded-For", "10.3.3.3:8080, 10.4.4.4");

        assertThat(behindProxies.clientAddress(request).getHostAddress()).isEqualTo("10.3.3.3");
    }

    @Test
    void ipv4MappedPeersMatchIpv4Blocks() {
        TestRequest request = TestRequest.get("/", "::ffff:10.0.0.2").header("X-Forwarded-For", "198.51.100.5");

        assertThat(behindProxies.clientAddress(request).getHostAddress()).isEqualTo("198.51.100.5");
    }

    @Test
    void theApiKeyComesFromTheHeaderElseTheQueryParameter() {
        ClientIdentity identity = ClientIdentity.custom().apiKeyQueryParameter("api_key").build();

        assertThat(identity.apiKey(TestRequest.get("/", "::1").header("X-Api-Key", "h").query("api_key", "q")))
                .contains("h");
        assertThat(identity.apiKey(TestRequest.get("/", "::1").query("api_key", "q"))).contains("q");
        assertThat(identity.apiKey(TestRequest.get("/", "::1").header("X-Api-Key", ""))).isEmpty();
        assertThat(ClientIdentity.ofDefaults().apiKey(TestRequest.get("/", "::1").query("api_key", "q"))).isEmpty();
    }

    @Test
    void badConfigurationIsRefusedNamingTheValue() {
        assertThatThrownBy(() -> ClientIdentity.custom().trustedProxies(List.of("10.0.0.0/33")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("10.0.0.0/33");
        assertThatThrownBy(() -> ClientIdentity.custom().trustedProxies(List.of("proxy.internal")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("proxy.internal");
        assertThatThrownBy(() -> ClientIdentity.custom().apiKeyHeader("X Api Key"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("X Api Key");
    }

    @Test
    void aPeerThatIsNotAnAddressIsAnError() {
        assertThatThrownBy(() -> ClientIdentity.ofDefaults().clientAddress(TestRequest.get("/", "localhost")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("localhost");
    }
}
