package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.http.HttpURI;
import org.junit.jupiter.api.Test;

class UpstreamUrisTest {

    @Test
    void theRequestsPathAndQueryGoToTheUpstreamBehindItsPrefix() {
        UnaryOperator<HttpURI> toUpstream = Gateway.upstreamUris(URI.create("http://10.0.0.7:8081/api//"));

        assertThat(toUpstream.apply(HttpURI.from("http://gateway:8080/v1/things?page=2&q=a%20b")).asString())
                .isEqualTo("http://10.0.0.7:8081/api/v1/things?page=2&q=a%20b");
        // The upstream is kept once: a second request gets its own path, not the first one's.
        assertThat(toUpstream.apply(HttpURI.from("http://gateway:8080/health")).asString())
                .isEqualTo("http://10.0.0.7:8081/api/health");
    }

    @Test
    void anUpstreamWithoutAPathTakesTheRequestsAsItIs() {
        UnaryOperator<HttpURI> toUpstream = Gateway.upstreamUris(URI.create("https://upstream.example"));

        assertThat(toUpstream.apply(HttpURI.from("http://gateway:8080/v1/things")).asString())
                .isEqualTo("https://upstream.example/v1/things");
    }
}
