package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.core.PolicyConfig;
import io.sluice.core.PolicyLimiter;
import io.sluice.http.HttpRateLimiter;
import io.sluice.http.HttpRequestView;
import io.sluice.http.HttpVerdict;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import java.util.List;
import org.jspecify.annotations.Nullable;
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
        HttpVerdict admitted = limiter.decide(new View("free-0123456789abcdef"));
        recorder.record(admitted, 1_000);
        assertThat(recorder.lastSeen(admitted.client())).map(DecisionRecorder.Seen::outcome)
                .hasValue(HttpVerdict.Outcome.ALLOWED);

        HttpVerdict denied = limiter.decide(new View("free-0123456789abcdef"));
        recorder.record(denied, 1_000);

        assertThat(denied.client()).isEqualTo(admitted.client());
        assertThat(recorder.lastSeen(denied.client())).map(DecisionRecorder.Seen::outcome)
                .hasValue(HttpVerdict.Outcome.DENIED);
        assertThat(recorder.lastSeen("ip:192.0.2.1")).isEmpty();
    }

    /** A request with an API key from 203.0.113.5. */
    private record View(String key) implements HttpRequestView {

        @Override
        public String method() {
            return "GET";
        }

        @Override
        public String path() {
            return "/v1/things";
        }

        @Override
        public List<String> headers(String name) {
            return name.equalsIgnoreCase("X-Api-Key") ? List.of(key) : List.of();
        }

        @Override
        public @Nullable String queryParameter(String name) {
            return null;
        }

        @Override
        public String peerAddress() {
            return "203.0.113.5";
        }
    }
}
