package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.PolicyConfig;
import io.sluice.core.PolicyLimiter;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.http.StructuredFieldParser;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee11.servlet.FilterHolder;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The filter in a real servlet container (Jetty 12.1, Servlet 6.1), called by a real HTTP client. */
class RateLimitFilterTest {

    private static final String POLICY = """
            anonymous:
              limits:
                - name: per-minute
                  algorithm: fixed-window
                  permits: 3
                  period: 1m
            """;

    private final AtomicInteger served = new AtomicInteger();
    private final HttpClient client = HttpClient.newHttpClient();
    private Server server;
    private URI base;

    @BeforeEach
    void start() throws Exception {
        PolicyLimiter policy = PolicyLimiter.builder().config(PolicyConfig.parse(POLICY, "test.yaml"))
                .store(LocalStore.builder().build()).build();
        HttpRateLimiter limiter = HttpRateLimiter.custom(policy).build();
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/app");
        context.addFilter(new FilterHolder(new RateLimitFilter(limiter)), "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                served.incrementAndGet();
                response.getWriter().write("hello");
            }
        }), "/*");
        server.setHandler(context);
        server.start();
        base = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/app/");
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    @Test
    void theFilterAdmitsUpToTheLimitThenAnswers429ItselfAndTheApplicationNeverSeesIt() throws Exception {
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> ok = get("things");
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).isEqualTo("hello");
            StructuredFieldParser.parseList(ok.headers().firstValue("RateLimit").orElseThrow());
            assertThat(StructuredFieldParser.parseList(ok.headers().firstValue("RateLimit").orElseThrow()).get(0)
                    .parameters()).containsEntry("r", 2L - i);
        }

        HttpResponse<String> denied = get("things");

        assertThat(denied.statusCode()).isEqualTo(429);
        assertThat(denied.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith(HttpVerdict.PROBLEM_JSON));
        assertThat(Long.parseLong(denied.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 60L);
        assertThat(denied.body()).contains("\"policy\":\"anonymous.per-minute\"");
        assertThat(served).hasValue(3);
    }

    @Test
    void aForwardedForHeaderFromAnUntrustedPeerDoesNotMoveTheClientToAnotherBucket() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(get("things").statusCode()).isEqualTo(200);
        }

        // A fresh address in each header: if it were believed, each would get a fresh bucket.
        List<Integer> spoofed = List.of(get("things", "198.51.100.1"), get("things", "198.51.100.2"))
                .stream().map(HttpResponse::statusCode).toList();

        assertThat(spoofed).containsOnly(429);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(base.resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path, String forwardedFor) throws Exception {
        return client.send(HttpRequest.newBuilder(base.resolve(path)).header("X-Forwarded-For", forwardedFor)
                .header("Forwarded", "for=" + forwardedFor).build(), HttpResponse.BodyHandlers.ofString());
    }
}
