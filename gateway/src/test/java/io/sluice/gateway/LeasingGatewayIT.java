package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.testkit.redis.RedisFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gateway whose policy file turns leasing on, on a real redis-server, through a real HTTP
 * client: it decides from leases, and its graceful shutdown gives the unused tokens back.
 * What the store holds is read through a second gateway without leasing, from its
 * {@code X-RateLimit-Remaining}.
 */
class LeasingGatewayIT {

    @RegisterExtension
    static final RedisFixture REDIS = RedisFixture.standalone();

    /** A year's tokens, so that the bucket refills one every 8.8 hours: nothing within the test. */
    private static final int PERMITS = 1_000;
    /** What the reader takes first, so that the bucket is far from full and its leases last. */
    private static final int DRAIN = 900;

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();
    @AutoClose
    private final TestUpstream upstream = new TestUpstream();

    private Path config(String name, String key, String leasing) throws Exception {
        String yaml = """
                store:
                  type: redis
                  uri: %s
                  timeout: 500ms
                http:
                  headers: [x-ratelimit]
                %s
                tiers:
                  - name: free
                    limits:
                      - name: per-year
                        algorithm: token-bucket
                        permits: %d
                        burst: %d
                        period: 366d
                api-keys:
                  keys:
                    - key: "%s"
                      tier: free
                endpoints:
                  - name: drain
                    path: /drain
                    cost: %d
                """.formatted(REDIS.uri(), leasing, PERMITS, PERMITS, key, DRAIN);
        Path file = dir.resolve(name);
        Files.writeString(file, yaml, StandardCharsets.UTF_8);
        return file;
    }

    private Gateway start(Path file) {
        return Gateway.start(new Gateway.Settings(file, upstream.uri(), "127.0.0.1", 0, "127.0.0.1", 0,
                Duration.ofSeconds(10), true));
    }

    private HttpResponse<String> get(Gateway gateway, String key) throws Exception {
        return get(gateway, key, "/v1/things");
    }

    private HttpResponse<String> get(Gateway gateway, String key, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + path))
                .header("X-Api-Key", key).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** What the store has left of the key's limit, after one more request through {@code reader}. */
    private long storeRemainingAfterOne(Gateway reader, String key) throws Exception {
        HttpResponse<String> response = get(reader, key);
        assertThat(response.statusCode()).isEqualTo(200);
        return Long.parseLong(response.headers().firstValue("X-RateLimit-Remaining").orElseThrow());
    }

    @Test
    void aGatewayLeasesWhenItsPolicyFileSaysSoAndGivesTheUnusedTokensBackOnShutdown() throws Exception {
        String key = "leasing-key-" + System.nanoTime();
        Gateway leasing = start(config("leasing.yaml", key, "leasing:\n  share: 10%"));
        boolean closed = false;
        try (Gateway reader = start(config("reader.yaml", key, ""))) {
            assertThat(get(reader, key, "/drain").statusCode()).isEqualTo(200);
            for (int i = 0; i < 40; i++) {
                assertThat(get(leasing, key).statusCode()).isEqualTo(200);
            }
            assertThat(storeRemainingAfterOne(reader, key)).as("with tokens held by the leasing gateway")
                    .isLessThan(PERMITS - DRAIN - 40 - 1);

            leasing.close();
            closed = true;

            assertThat(storeRemainingAfterOne(reader, key)).as("after the graceful shutdown")
                    .isEqualTo(PERMITS - DRAIN - 40 - 2);
            assertThat(upstream.served()).isEqualTo(43);
        } finally {
            if (!closed) {
                leasing.close();
            }
        }
    }
}
