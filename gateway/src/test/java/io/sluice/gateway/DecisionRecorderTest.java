package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.core.PolicyConfig;
import io.sluice.core.PolicyLimiter;
import io.sluice.http.HttpRateLimiter;
import io.sluice.http.HttpVerdict;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import org.junit.jupiter.api.Test;

class DecisionRecorderTest {

    private final HttpRateLimiter limiter = HttpRateLimiter.custom(PolicyLimiter.builder()
            .config(PolicyConfig.parse("""
                    tiers:
                      - name: free
                        limits:
                          - name: per-day
                            algorithm: fixed-window
                            permits: 1
                            period: 1d
                    api-keys:
                      keys:
                        - key: "free-0123456789abcdef"
                          tier: free
                    """, "test.yaml"))
            .store(LocalStore.builder().clockForTesting(new VirtualClock(1_000_000_000_000L)).build()).build())
            .build();
    private final DecisionRecorder recorder = new DecisionRecorder(new SimpleMeterRegistry(), new TopDenied(10));

    @Test
    void aClientSeenAgainShowsItsLatestDecision() {
        HttpVerdict admitted = limiter.decide(new ApiKeyRequest("free-0123456789abcdef", "203.0.113.5"));
        recorder.record(admitted, 1_000);
        assertThat(recorder.lastSeen(admitted.client())).map(DecisionRecorder.Seen::outcome)
                .hasValue(HttpVerdict.Outcome.ALLOWED);

        HttpVerdict denied = limiter.decide(new ApiKeyRequest("free-0123456789abcdef", "203.0.113.5"));
        recorder.record(denied, 1_000);

        assertThat(denied.client()).isEqualTo(admitted.client());
        assertThat(recorder.lastSeen(denied.client())).map(DecisionRecorder.Seen::outcome)
                .hasValue(HttpVerdict.Outcome.DENIED);
        assertThat(recorder.lastSeen("ip:192.0.2.1")).isEmpty();
    }

    @Test
    void theDecisionTimeIsAPrometheusHistogramWithoutPercentilesComputedHere() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        DecisionRecorder timed = new DecisionRecorder(registry, new TopDenied(10));
        HttpVerdict admitted = limiter.decide(new ApiKeyRequest("free-0123456789abcdef", "203.0.113.5"));

        timed.record(admitted, 80_000);
        timed.record(admitted, 700_000);
        timed.record(admitted, 3_000_000);

        String metrics = registry.scrape();
        assertThat(metrics).contains("sluice_gateway_decision_seconds_count 3",
                "sluice_gateway_decision_seconds_bucket{le=\"5.0E-5\"} 0",
                "sluice_gateway_decision_seconds_bucket{le=\"1.0E-4\"} 1",
                "sluice_gateway_decision_seconds_bucket{le=\"0.001\"} 2",
                "sluice_gateway_decision_seconds_bucket{le=\"0.005\"} 3",
                "sluice_gateway_decision_seconds_bucket{le=\"+Inf\"} 3").doesNotContain("quantile");
    }
}
