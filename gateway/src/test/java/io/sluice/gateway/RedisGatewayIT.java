package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.http.HttpRateLimiter;
import io.sluice.testkit.redis.RedisFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gateways on a real redis-server: a fleet shares one limit; an outage is a 503; the store
 * section's {@code read-key-schema-1} reaches the Redis store.
 */
class RedisGatewayIT {

    @RegisterExtension
    static final RedisFixture REDIS = RedisFixture.standalone();

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();
    @AutoClose
    private final TestUpstream upstream = new TestUpstream();

    private Path config(String redisUri, String key) throws Exception {
        return config(redisUri, key, "", "sluice.yaml");
    }

    /** The policy of one key of the free tier; {@code storeOption}, when not empty, is one more line of the store section. */
    private Path config(String redisUri, String key, String storeOption, String fileName) throws Exception {
        // A generous timeout: a 2-core machine running the build can stall a command for milliseconds.
        String yaml = """
                store:
                  type: redis
                  uri: %s
                  timeout: 500ms
                %s
                failure-policy: fail-closed
                tiers:
                  - name: free
                    limits:
                      - name: per-hour
                        algorithm: token-bucket
                        permits: 30
                        period: 1h
                api-keys:
                  keys:
                    - key: "%s"
                      tier: free
                """.formatted(redisUri, storeOption.isEmpty() ? "" : "  " + storeOption, key);
        Path file = dir.resolve(fileName);
        Files.writeString(file, yaml, StandardCharsets.UTF_8);
        return file;
    }

    private HttpResponse<String> get(int port, String key) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/things"))
                .header("X-Api-Key", key).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void twoGatewayProcessesOnOneRedisShareOneLimit() throws Exception {
        String key = "shared-key-" + System.nanoTime();
        Path file = config(REDIS.uri(), key);
        try (Gateway inProcess = Gateway.start(new Gateway.Settings(file, upstream.uri(), "127.0.0.1", 0, "127.0.0.1", 0,
                Duration.ofSeconds(10), true));
             GatewayProcess otherJvm = GatewayProcess.start(file, upstream.uri().toString())) {
            List<Integer> first = new ArrayList<>();
            List<Integer> second = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                first.add(get(inProcess.port(), key).statusCode());
                second.add(get(otherJvm.port(), key).statusCode());
            }

            // 30 over both (a token bucket of 30 an hour, which refills one in 2 minutes: no window
            // boundary for the requests to straddle): each gateway alone would have admitted all of its 30.
            assertThat(first.stream().filter(status -> status == 200).count()
                    + second.stream().filter(status -> status == 200).count()).isEqualTo(30);
            assertThat(first).containsOnly(200, 429);
            assertThat(second).containsOnly(200, 429);
            assertThat(upstream.served()).isEqualTo(30);
            int exit = otherJvm.stop();
            assertThat(otherJvm.output()).as("exit code %d", exit).contains("sluice gateway: stopped");
        }
    }

    @Test
    void aFailClosedStoreOutageIs503NeverA429AndHealthSaysSo() throws Exception {
        RedisFixture lost = RedisFixture.standalone().start();
        String key = "outage-key-" + System.nanoTime();
        try (Gateway gateway = Gateway.start(new Gateway.Settings(config(lost.uri(), key), upstream.uri(), "127.0.0.1",
                0, "127.0.0.1", 0, Duration.ofSeconds(10), true))) {
            assertThat(get(gateway.port(), key).statusCode()).isEqualTo(200);

            lost.close();
            HttpResponse<String> response = get(gateway.port(), key);
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + gateway.adminPort() + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.body()).contains(HttpRateLimiter.STORE_UNAVAILABLE);
            assertThat(response.headers().firstValue("Retry-After")).isEmpty();
            assertThat(health.statusCode()).isEqualTo(503);
            assertThat(health.body()).contains("\"status\":\"DOWN\"");
            assertThat(upstream.served()).isEqualTo(1);

            // Ten failed calls in the breaker's window (half of them failing) open it: /health shows it.
            for (int i = 0; i < 10; i++) {
                assertThat(get(gateway.port(), key).statusCode()).isEqualTo(503);
            }
            HttpResponse<String> open = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + gateway.adminPort() + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(open.body()).contains("\"status\":\"DOWN\"", "\"breaker\":\"open\"");
            assertThat(upstream.served()).isEqualTo(1);
        } finally {
            lost.close();
        }
    }

    /**
     * A rolling upgrade through the gateway: with {@code read-key-schema-1: true} the Redis store
     * reads a limit's state in key schema 1 ({@code sluice:v1:{<client>}:<limit name>}) when the
     * client's key has none, so a client whose bucket an older version emptied is still denied;
     * without it (the default, and {@code false}) that key is not read and the client is admitted.
     */
    @Test
    void readKeySchemaOneReachesTheRedisStore() throws Exception {
        String key = "upgraded-key";
        // A server of its own: the client's key is then the only one.
        try (RedisFixture redis = RedisFixture.standalone().start();
             Gateway off = gateway(config(redis.uri(), key, "", "default.yaml"));
             Gateway explicitlyOff = gateway(config(redis.uri(), key, "read-key-schema-1: false", "off.yaml"));
             Gateway on = gateway(config(redis.uri(), key, "read-key-schema-1: true", "on.yaml"))) {
            // The client's key in schema 2 is sluice{<hash>}: one admitted request writes it.
            assertThat(get(off.port(), key).statusCode()).isEqualTo(200);
            String clientKey = onlyClientKey(redis);
            String version1Key = "sluice:v1:" + clientKey.substring("sluice".length()) + ":tier.free.per-hour";
            long nowMicros = redisMicros(redis);
            // Schema 1's token bucket, as an older version left it: empty, refilled now, kept for an hour
            // (expiry, the state's tag, tokens, refilled at; RedisStoreIT writes the same).
            redis.command(0, "SET", version1Key, (nowMicros + 3_600_000_000L) + ",1025,0," + nowMicros, "PX", "3600000");

            redis.command(0, "DEL", clientKey);
            assertThat(get(off.port(), key).statusCode()).as("not read by default").isEqualTo(200);
            redis.command(0, "DEL", clientKey);
            assertThat(get(explicitlyOff.port(), key).statusCode()).as("not read when false").isEqualTo(200);
            redis.command(0, "DEL", clientKey);
            HttpResponse<String> denied = get(on.port(), key);

            assertThat(denied.statusCode()).as("read when true").isEqualTo(429);
            // 30 an hour: the empty bucket's next token in 2 minutes.
            assertThat(denied.headers().firstValue("Retry-After")).contains("120");
            assertThat(upstream.served()).isEqualTo(3);
        }
    }

    @Test
    void aRedisClusterFromTheConfigSharesOneLimitBetweenTwoGateways() throws Exception {
        String key = "cluster-key-" + System.nanoTime();
        try (RedisFixture cluster = RedisFixture.cluster().start()) {
            String yaml = Files.readString(config(cluster.uri(), key), StandardCharsets.UTF_8)
                    .replace("  uri: " + cluster.uri(), "  cluster: [" + cluster.uri() + ", " + cluster.uri(1) + "]");
            Path file = dir.resolve("cluster.yaml");
            Files.writeString(file, yaml, StandardCharsets.UTF_8);
            try (Gateway first = gateway(file); Gateway second = gateway(file)) {
                List<Integer> statuses = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    statuses.add(get(first.port(), key).statusCode());
                    statuses.add(get(second.port(), key).statusCode());
                }
                HttpResponse<String> health = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + first.adminPort() + "/health")).build(),
                        HttpResponse.BodyHandlers.ofString());

                // 30 an hour over both gateways, as in one process.
                assertThat(statuses.stream().filter(status -> status == 200)).hasSize(30);
                assertThat(statuses.subList(30, 32)).containsExactly(429, 429);
                assertThat(upstream.served()).isEqualTo(30);
                assertThat(health.body()).contains("\"status\":\"UP\"", "redis cluster (2 seed nodes)");
            }
        }
    }

    private Gateway gateway(Path config) {
        return Gateway.start(new Gateway.Settings(config, upstream.uri(), "127.0.0.1", 0, "127.0.0.1", 0,
                Duration.ofSeconds(10), true));
    }

    /** The one client key in schema 2 (the test's client), not the instances' set. */
    private static String onlyClientKey(RedisFixture redis) {
        Object keys = redis.command(0, "KEYS", "sluice{*");
        List<String> clients = ((List<?>) keys).stream().map(String::valueOf)
                .filter(name -> !name.equals("sluice{instances}")).toList();
        assertThat(clients).hasSize(1);
        return clients.get(0);
    }

    /** Redis's clock ({@code TIME}) in microseconds: the store decides on it. */
    private static long redisMicros(RedisFixture redis) {
        List<?> time = (List<?>) redis.command(0, "TIME");
        return Long.parseLong(String.valueOf(time.get(0))) * 1_000_000 + Long.parseLong(String.valueOf(time.get(1)));
    }
}
