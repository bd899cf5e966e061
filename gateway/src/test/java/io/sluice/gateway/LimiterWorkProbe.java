package io.sluice.gateway;

import com.sun.management.ThreadMXBean;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.core.PolicyLimiter;
import io.sluice.core.ReloadingPolicyConfig;
import io.sluice.core.StoreGuard;
import io.sluice.http.HttpRateLimiter;
import io.sluice.http.HttpVerdict;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Not a test: the gateway limiter's own work per request, without HTTP or a network, on the
 * local store: CPU time and bytes allocated by the calling thread for each decision (identity,
 * policy, guard, store, verdict with its fields and problem body) and its recording (meters,
 * last seen), for admitted requests and for denials. Bytes do not depend on what else the
 * machine runs; the CPU time does, a little (caches). Run from the gateway's test classes:
 *
 * <pre>{@code
 * mvn -o -q -B -pl gateway -am package -DskipTests
 * java -cp "gateway/target/test-classes:gateway/target/classes:$(cat gateway/target/bench.classpath)" \
 *     io.sluice.gateway.LimiterWorkProbe
 * }</pre>
 */
public final class LimiterWorkProbe {

    private static final int KEYS = 1_000;
    private static final int REQUESTS_PER_ROUND = 200_000;
    private static final int WARM_UP_ROUNDS = 4;
    private static final int ROUNDS = 8;

    private LimiterWorkProbe() {
    }

    public static void main(String[] args) throws Exception {
        // Admitted: the gateway benchmark's limits. Denied: one request a day, spent by the first round.
        run("admitted", """
                      - name: per-second
                        algorithm: token-bucket
                        permits: 1_000_000
                        period: 1s
                      - name: per-day
                        algorithm: fixed-window
                        permits: 1_000_000_000
                        period: 1d
                """);
        run("denied", """
                      - name: per-day
                        algorithm: fixed-window
                        permits: 1
                        period: 1d
                """);
        System.exit(0);
    }

    private static void run(String what, String limits) throws Exception {
        StringBuilder yaml = new StringBuilder("store:\n  type: local\ntiers:\n  - name: bench\n    limits:\n")
                .append(limits).append("api-keys:\n  unknown: reject\n  keys:\n");
        ApiKeyRequest[] requests = new ApiKeyRequest[KEYS];
        for (int i = 0; i < KEYS; i++) {
            yaml.append("    - key: \"bench-key-").append(i).append("\"\n      tier: bench\n");
            requests[i] = new ApiKeyRequest("bench-key-" + i, "127.0.0.1");
        }
        Path file = Files.createTempFile("sluice-probe", ".yaml");
        Files.writeString(file, yaml, StandardCharsets.UTF_8);
        GatewayConfig gatewayConfig = GatewayConfig.load(file);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (ReloadingPolicyConfig config = ReloadingPolicyConfig.watch(file, new ConfigTracker(file, registry));
             ConfiguredStore store = ConfiguredStore.open(gatewayConfig.store());
             PolicyLimiter policyLimiter = PolicyLimiter.builder().config(config).store(store.store())
                     .guard(StoreGuard.custom().meterRegistry(registry).storeName("local").build()).build()) {
            // As Gateway.start builds them.
            HttpRateLimiter limiter = HttpRateLimiter.custom(policyLimiter).identity(gatewayConfig.identity())
                    .headers(gatewayConfig.headerFamilies()).build();
            DecisionRecorder recorder = new DecisionRecorder(registry, new TopDenied(Gateway.TOP_DENIED_CAPACITY));
            ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
            long written = 0;
            for (int round = 0; round < WARM_UP_ROUNDS + ROUNDS; round++) {
                long cpu = threads.getCurrentThreadCpuTime();
                long bytes = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < REQUESTS_PER_ROUND; i++) {
                    HttpVerdict verdict = limiter.decideAsync(requests[i % KEYS]).toCompletableFuture().join();
                    recorder.record(verdict, 1_000);
                    // What LimitingHandler writes: each field's value and a denial's body.
                    for (HttpVerdict.Header header : verdict.headers()) {
                        written += header.value().length();
                    }
                    String body = verdict.body();
                    written += body == null ? 0 : body.length();
                }
                if (round >= WARM_UP_ROUNDS) {
                    System.out.printf(Locale.ROOT, "%s, round %d: %.0f ns CPU, %.0f bytes per request%n", what,
                            round - WARM_UP_ROUNDS + 1,
                            (threads.getCurrentThreadCpuTime() - cpu) / (double) REQUESTS_PER_ROUND,
                            (threads.getCurrentThreadAllocatedBytes() - bytes) / (double) REQUESTS_PER_ROUND);
                }
            }
            System.out.printf(Locale.ROOT, "%s: %d characters of fields and bodies%n", what, written);
        }
    }
}
