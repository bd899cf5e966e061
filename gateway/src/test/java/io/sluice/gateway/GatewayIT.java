package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import io.sluice.testkit.http.StructuredFieldParser;
import io.sluice.testkit.http.StructuredFieldParser.Item;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gateway end to end: a real HTTP client, the running gateway, a real upstream. */
class GatewayIT {

    private static final String KEY = "free-key-0123456789abcdef";

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final VirtualClock clock = new VirtualClock(1_000_000_000_000L);
    /** Closed after the gateway ({@link #stopGateway}): an {@code @AfterEach} runs before {@code @AutoClose}. */
    @AutoClose
    private final TestUpstream upstream = new TestUpstream();
    private Gateway gateway;

    @AfterEach
    void stopGateway() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
    }

    private static String policy(String freeLimit, String http) {
        return http + """
                tiers:
                  - name: free
                    limits:
                %s
                api-keys:
                  keys:
                    - key: "%s"
                      tier: free
                anonymous:
                  limits:
                    - name: per-minute
                      algorithm: fixed-window
                      permits: 2
                      period: 1m
                """.formatted(freeLimit.indent(6).stripTrailing(), KEY);
    }

    private static final String FIXED_20 = """
            - name: per-minute
              algorithm: fixed-window
              permits: 20
              period: 1m""";

    private Path write(String yaml) throws IOException {
        Path file = dir.resolve("sluice.yaml");
        Path next = dir.resolve("sluice.yaml.next");
        Files.writeString(next, yaml, StandardCharsets.UTF_8);
        Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return file;
    }

    private void start(String yaml) throws IOException {
        Path file = write(yaml);
        Gateway.Settings settings = new Gateway.Settings(file, upstream.uri(), "127.0.0.1", 0, "127.0.0.1", 0,
                Duration.ofSeconds(20), true);
        gateway = Gateway.start(settings, GatewayConfig.load(file),
                () -> ConfiguredStore.of(LocalStore.builder().clockForTesting(clock).build(), "local, virtual clock"),
                clock);
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        return http.send(request(path, headers), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest request(String path, String... headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + path));
        if (headers.length > 0) {
            builder.headers(headers);
        }
        return builder.build();
    }

    private HttpResponse<String> admin(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.adminPort() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theLimitHoldsUnderConcurrentRequestsAndOnlyAdmittedOnesReachTheUpstream() throws Exception {
        start(policy(FIXED_20, ""));

        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            responses.add(http.sendAsync(request("/v1/things", "X-Api-Key", KEY), HttpResponse.BodyHandlers.ofString()));
        }
        List<Integer> statuses = responses.stream().map(CompletableFuture::join).map(HttpResponse::statusCode).toList();

        assertThat(statuses.stream().filter(status -> status == 200)).hasSize(20);
        assertThat(statuses.stream().filter(status -> status == 429)).hasSize(30);
        assertThat(upstream.served()).isEqualTo(20);
    }

    @Test
    void theRateLimitFieldsParseAsStructuredFieldsOnAdmittedAndDeniedResponses() throws Exception {
        start(policy(FIXED_20, "http:\n  headers: [ietf, x-ratelimit]\n"));

        HttpResponse<String> admitted = get("/v1/things", "X-Api-Key", KEY);
        assertThat(admitted.statusCode()).isEqualTo(200);
        assertThat(admitted.body()).isEqualTo("upstream /v1/things");
        List<Item> policy = StructuredFieldParser.parseList(admitted.headers().firstValue("RateLimit-Policy").orElseThrow());
        assertThat(policy).singleElement().satisfies(item -> {
            assertThat(item.value()).isEqualTo("tier.free.per-minute");
            assertThat(item.parameters()).containsEntry("q", 20L).containsEntry("w", 60L);
        });
        Item current = StructuredFieldParser.parseList(admitted.headers().firstValue("RateLimit").orElseThrow()).get(0);
        assertThat(current.parameters()).containsEntry("r", 19L).containsKey("t");
        assertThat(admitted.headers().firstValue("X-RateLimit-Remaining")).hasValue("19");

        for (int i = 0; i < 19; i++) {
            get("/v1/things", "X-Api-Key", KEY);
        }
        HttpResponse<String> denied = get("/v1/things", "X-Api-Key", KEY);

        assertThat(denied.statusCode()).isEqualTo(429);
        assertThat(denied.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        Item exhausted = StructuredFieldParser.parseList(denied.headers().firstValue("RateLimit").orElseThrow()).get(0);
        assertThat(exhausted.parameters()).containsEntry("r", 0L);
        assertThat(denied.body()).contains("\"policy\":\"tier.free.per-minute\"");
    }

    @Test
    void retryAfterIsTheWaitInWholeSecondsRoundedUpAndWaitingThatLongIsEnough() throws Exception {
        start(policy("""
                - name: slow
                  algorithm: token-bucket
                  permits: 1
                  period: 3s""", ""));

        assertThat(get("/x", "X-Api-Key", KEY).statusCode()).isEqualTo(200);
        HttpResponse<String> denied = get("/x", "X-Api-Key", KEY);
        assertThat(denied.statusCode()).isEqualTo(429);
        assertThat(denied.headers().firstValue("Retry-After")).hasValue("3");

        clock.advance(Duration.ofMillis(2_500));
        HttpResponse<String> stillDenied = get("/x", "X-Api-Key", KEY);
        assertThat(stillDenied.statusCode()).isEqualTo(429);
        assertThat(stillDenied.headers().firstValue("Retry-After")).hasValue("1");

        clock.advance(Duration.ofMillis(500));
        assertThat(get("/x", "X-Api-Key", KEY).statusCode()).isEqualTo(200);
    }

    @Test
    void anUnknownKeyIs401AndNeverReachesTheUpstream() throws Exception {
        start(policy(FIXED_20, ""));

        HttpResponse<String> response = get("/x", "X-Api-Key", "invented-key");

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.body()).contains("unknown-api-key");
        assertThat(upstream.served()).isZero();
    }

    @Test
    void aConfigReloadChangesTheLimitsLive() throws Exception {
        start(policy("""
                - name: per-minute
                  algorithm: fixed-window
                  permits: 2
                  period: 1m""", ""));
        assertThat(get("/x", "X-Api-Key", KEY).statusCode()).isEqualTo(200);
        assertThat(get("/x", "X-Api-Key", KEY).statusCode()).isEqualTo(200);
        assertThat(get("/x", "X-Api-Key", KEY).statusCode()).isEqualTo(429);

        write(policy("""
                - name: per-minute
                  algorithm: fixed-window
                  permits: 5
                  period: 1m""", ""));
        awaitGeneration(2);

        // The window's count (2) is kept: 3 more under the new limit of 5.
        List<Integer> after = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            after.add(get("/x", "X-Api-Key", KEY).statusCode());
        }
        assertThat(after).containsExactly(200, 200, 200, 429);
    }

    private void awaitGeneration(int generation) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!admin("/admin/config").body().contains("\"generation\":" + generation)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the reload was not applied: " + admin("/admin/config").body());
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void anUntrustedForwardedForDoesNotMoveTheClientToAnotherBucket() throws Exception {
        start(policy(FIXED_20, ""));

        List<Integer> statuses = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            statuses.add(get("/x", "X-Forwarded-For", "198.51.100." + i, "Forwarded", "for=198.51.100." + i)
                    .statusCode());
        }

        assertThat(statuses).containsExactly(200, 200, 429, 429);
    }

    @Test
    void aTrustedProxysForwardedForDoesGiveEachClientItsBucket() throws Exception {
        start(policy(FIXED_20, "http:\n  trusted-proxies: [127.0.0.1/32, \"::1\"]\n"));

        List<Integer> first = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            first.add(get("/x", "X-Forwarded-For", "198.51.100.1").statusCode());
        }
        int other = get("/x", "X-Forwarded-For", "198.51.100.2").statusCode();

        assertThat(first).containsExactly(200, 200, 429);
        assertThat(other).isEqualTo(200);
    }

    @Test
    void theAdminEndpointsAnswer() throws Exception {
        start(policy(FIXED_20, ""));
        for (int i = 0; i < 21; i++) {
            get("/v1/things", "X-Api-Key", KEY);
        }

        assertThat(admin("/metrics").body()).contains("sluice_gateway_requests_total{outcome=\"denied\"} 1.0",
                "sluice_gateway_requests_total{outcome=\"allowed\"} 20.0", "sluice_gateway_decision_seconds",
                "sluice_decisions_total{", "rule=\"tier.free.per-minute\"")
                // Never a tag per client: clients show only in /admin/top-denied.
                .doesNotContain(KEY, "client=", "key=", "127.0.0.1");
        HttpResponse<String> health = admin("/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"", "\"breaker\":\"closed\"");
        assertThat(admin("/admin/config").body()).containsPattern("\"sha256\":\"[0-9a-f]{16}\"")
                .contains("\"generation\":1", "\"loaded-at\":");
        String explain = admin("/admin/explain?key=" + KEY + "&method=GET&path=/v1/things").body();
        assertThat(explain).contains("\"tier\":\"free\"", "\"name\":\"tier.free.per-minute\"",
                "\"outcome\":\"DENIED\"", "\"remaining\":0").doesNotContain(KEY);
        String top = admin("/admin/top-denied").body();
        assertThat(top).contains("\"client\":\"key:free...#", "\"denied\":1").doesNotContain(KEY);
        assertThat(admin("/nothing-here").statusCode()).isEqualTo(404);
    }

    @Test
    void shutdownStopsAcceptingAndFinishesEveryRequestInFlight() throws Exception {
        start(policy(FIXED_20, ""));
        HttpClient client = HttpClient.newHttpClient();
        List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            inFlight.add(client.sendAsync(request("/hold", "X-Api-Key", KEY), HttpResponse.BodyHandlers.ofString()));
        }
        upstream.awaitHeld(10);
        // Read before closing: a closing connector reports no port (-2).
        int port = gateway.port();

        CompletableFuture<Void> closed = CompletableFuture.runAsync(gateway::close);
        awaitRefused(port);
        assertThat(closed).isNotDone();
        upstream.releaseHeld();
        closed.get();
        gateway = null;

        // Every response was written before close returned; the client may still be reading one.
        assertThat(inFlight).allSatisfy(response -> {
            assertThat(response).succeedsWithin(Duration.ofSeconds(30))
                    .satisfies(answered -> assertThat(answered.statusCode()).isEqualTo(200))
                    .satisfies(answered -> assertThat(answered.body()).isEqualTo("upstream /hold"));
        });
    }

    /** Waits until new connections to {@code port} are refused: the gateway stopped accepting. */
    private static void awaitRefused(int port) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + port + "/x");
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).header("X-Api-Key", KEY).build(),
                        HttpResponse.BodyHandlers.ofString());
            } catch (ConnectException e) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("the gateway still accepts connections");
    }

    @Test
    void theCommandLineRefusesABadUpstream() {
        assertThatThrownBy(() -> new Gateway.Settings(dir.resolve("x.yaml"), URI.create("ftp://host"), "127.0.0.1",
                0, "127.0.0.1", 0, Duration.ZERO, true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ftp://host");
    }
}
