package io.sluice.gateway;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.core.PolicyLimiter;
import io.sluice.core.ReloadingPolicyConfig;
import io.sluice.core.StoreGuard;
import io.sluice.http.ClientIdentity;
import io.sluice.http.HttpRateLimiter;
import io.sluice.http.HttpRequestView;
import io.sluice.http.HttpVerdict;
import io.sluice.http.Json;
import io.sluice.store.local.LocalStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.jspecify.annotations.Nullable;

/**
 * The admin port: {@code /metrics} (Prometheus), {@code /health} (is the store reachable, and the
 * state of its circuit breaker),
 * {@code /admin/config} (the policy version in force), {@code /admin/explain} (what applies to
 * a request, and the last decision this instance saw for that client) and
 * {@code /admin/top-denied} (the most denied clients). Answers GET only; never shows a whole
 * API key. Meant for operators: bind it where only they reach it.
 */
final class AdminHandler extends Handler.Abstract.NonBlocking {

    private static final Limit HEALTH_PROBE = Limit.of(Algorithms.TOKEN_BUCKET, Limit.MAX_PERMITS,
            Duration.ofSeconds(1)).named("health");
    private static final String HEALTH_KEY = "sluice:health";
    private static final long HEALTH_TIMEOUT_MILLIS = 1_000;

    private final PrometheusMeterRegistry registry;
    private final ConfiguredStore store;
    private final ReloadingPolicyConfig config;
    private final ConfigTracker tracker;
    private final GatewayConfig gatewayConfig;
    private final DecisionRecorder recorder;

    AdminHandler(PrometheusMeterRegistry registry, ConfiguredStore store, ReloadingPolicyConfig config,
                 ConfigTracker tracker, GatewayConfig gatewayConfig, DecisionRecorder recorder) {
        this.registry = registry;
        this.store = store;
        this.config = config;
        this.tracker = tracker;
        this.gatewayConfig = gatewayConfig;
        this.recorder = recorder;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        if (!request.getMethod().equals("GET")) {
            Response.writeError(request, response, callback, 405);
            return true;
        }
        Fields query = Request.extractQueryParameters(request);
        switch (Request.getPathInContext(request)) {
            case "/metrics" -> write(response, callback, 200, "text/plain; version=0.0.4; charset=utf-8",
                    registry.scrape());
            case "/health" -> health(response, callback);
            case "/admin/config" -> json(response, callback, 200, config());
            case "/admin/explain" -> explain(request, response, callback, query);
            case "/admin/top-denied" -> topDenied(response, callback, query);
            default -> Response.writeError(request, response, callback, 404);
        }
        return true;
    }

    /** Asks the store for a decision on a key of its own with a limit that never denies: any answer is health. */
    private void health(Response response, Callback callback) {
        long start = System.nanoTime();
        store.store().tryAcquire(HEALTH_KEY, List.of(HEALTH_PROBE), 1).toCompletableFuture()
                .orTimeout(HEALTH_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                .whenComplete((decision, failure) -> {
                    StringBuilder out = new StringBuilder("{");
                    Json.member(out, "status", failure == null ? "UP" : "DOWN");
                    Json.member(out, "store", store.description());
                    out.append(",\"store-latency-ms\":").append((System.nanoTime() - start) / 1_000_000.0);
                    breakerState().ifPresent(state -> Json.member(out, "breaker", state));
                    if (failure != null) {
                        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                                ? failure.getCause() : failure;
                        Json.member(out, "error", cause.toString());
                    }
                    json(response, callback, failure == null ? 200 : 503, out.append('}').toString());
                });
    }

    /** The circuit breaker's state, as the store guard's gauge says (1 for the current state). */
    private Optional<String> breakerState() {
        return registry.find(StoreGuard.BREAKER_STATE).gauges().stream()
                .filter(gauge -> gauge.value() == 1).map(gauge -> gauge.getId().getTag("state"))
                .filter(Objects::nonNull).findFirst();
    }

    private String config() {
        ConfigTracker.Version version = tracker.version();
        StringBuilder out = new StringBuilder("{");
        Json.member(out, "source", config.current().source());
        out.append(",\"generation\":").append(version.generation());
        Json.member(out, "sha256", version.sha256());
        Json.member(out, "loaded-at", version.loadedAt().toString());
        Json.member(out, "policy", config.current().toString());
        out.append(",\"rejected-reloads\":").append(config.rejectedReloads());
        String rejection = tracker.lastRejection();
        if (rejection != null) {
            Json.member(out, "rejected-file", rejection);
        }
        Json.member(out, "store", store.description());
        return out.append('}').toString();
    }

    /**
     * Decides the described request against a throwaway in-memory store (so the real one is
     * never charged), which tells what applies; the state is the last decision this instance
     * made for the same client.
     */
    private void explain(Request request, Response response, Callback callback, Fields query) {
        String path = query.getValue("path");
        if (path == null || !path.startsWith("/")) {
            json(response, callback, 400, "{\"error\":\"path is required and starts with /\"}");
            return;
        }
        String method = query.getValue("method") == null ? "GET" : query.getValue("method");
        String ip = query.getValue("ip") == null ? "127.0.0.1" : query.getValue("ip");
        ExplainedRequest explained = new ExplainedRequest(method, path, query.getValue("key"), ip,
                gatewayConfig.identity());
        HttpVerdict verdict;
        try (Store scratch = LocalStore.builder().maximumSize(16).build()) {
            PolicyLimiter limiter = PolicyLimiter.builder().config(config.current()).store(scratch).build();
            verdict = HttpRateLimiter.custom(limiter).identity(gatewayConfig.identity()).build().decide(explained);
        } catch (IllegalArgumentException e) {
            json(response, callback, 400, "{\"error\":" + quoted(String.valueOf(e.getMessage())) + "}");
            return;
        }
        StringBuilder out = new StringBuilder("{");
        Json.member(out, "client", verdict.client());
        out.append(",\"tier\":").append(verdict.decision().tier().map(AdminHandler::quoted).orElse("null"));
        out.append(",\"endpoint\":").append(verdict.decision().endpoint().map(AdminHandler::quoted).orElse("null"));
        out.append(",\"cost\":").append(verdict.decision().cost());
        out.append(",\"unknown-key\":").append(verdict.decision().unknownKey());
        out.append(",\"turned-away\":").append(verdict.decision().decision().isEmpty()
                ? quoted(verdict.status() + ": " + verdict.outcome()) : "null");
        out.append(",\"limits\":[");
        for (Limit limit : verdict.decision().limits()) {
            out.append(out.charAt(out.length() - 1) == '[' ? "{" : ",{");
            Json.member(out, "name", limit.name());
            Json.member(out, "algorithm", limit.algorithm().name());
            out.append(",\"permits\":").append(limit.permits()).append(",\"burst\":").append(limit.burst())
                    .append(",\"period-ms\":").append(limit.period().toMillis()).append('}');
        }
        out.append("],\"last-seen\":");
        recorder.lastSeen(verdict.client()).ifPresentOrElse(seen -> lastSeen(out, seen), () -> out.append("null"));
        json(response, callback, 200, out.append('}').toString());
    }

    private static void lastSeen(StringBuilder out, DecisionRecorder.Seen seen) {
        out.append('{');
        Json.member(out, "at", seen.at().toString());
        Json.member(out, "outcome", seen.outcome().name());
        Decision decision = seen.decision();
        if (decision != null) {
            Json.member(out, "reason", decision.reason().name());
            Json.member(out, "binding", decision.binding().name());
            out.append(",\"remaining\":").append(decision.remaining());
            out.append(",\"reset-after-ms\":").append(decision.resetAfter().toMillis());
            decision.retryAfter().ifPresent(wait -> out.append(",\"retry-after-ms\":").append(wait.toMillis()));
        }
        out.append('}');
    }

    private void topDenied(Response response, Callback callback, Fields query) {
        int limit = 20;
        String asked = query.getValue("limit");
        if (asked != null) {
            try {
                limit = Integer.parseInt(asked);
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1) {
                json(response, callback, 400, "{\"error\":" + quoted("limit must be a positive number: " + asked) + "}");
                return;
            }
        }
        TopDenied top = recorder.topDenied();
        StringBuilder out = new StringBuilder("{");
        out.append("\"capacity\":").append(top.capacity()).append(",\"total-denied\":").append(top.total())
                .append(",\"clients\":[");
        for (TopDenied.Entry entry : top.top(limit)) {
            out.append(out.charAt(out.length() - 1) == '[' ? "{" : ",{");
            Json.member(out, "client", entry.client());
            out.append(",\"denied\":").append(entry.denied()).append(",\"error\":").append(entry.error()).append('}');
        }
        json(response, callback, 200, out.append("]}").toString());
    }

    private static String quoted(String text) {
        StringBuilder out = new StringBuilder();
        Json.string(out, text);
        return out.toString();
    }

    private static void json(Response response, Callback callback, int status, String body) {
        write(response, callback, status, "application/json", body);
    }

    private static void write(Response response, Callback callback, int status, String type, String body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.write(true, BufferUtil.toBuffer(body, StandardCharsets.UTF_8), callback);
    }

    /** The request /admin/explain describes, as the limiter reads requests. */
    private record ExplainedRequest(String method, String path, @Nullable String key, String peerAddress,
                                    ClientIdentity identity) implements HttpRequestView {

        @Override
        public List<String> headers(String name) {
            return key != null && identity.apiKeyHeader().filter(name::equalsIgnoreCase).isPresent()
                    ? List.of(key) : List.of();
        }

        @Override
        public @Nullable String queryParameter(String name) {
            // Only consulted when there is no key header: then the key travels as the configured parameter.
            return identity.apiKeyHeader().isEmpty() ? key : null;
        }
    }
}
