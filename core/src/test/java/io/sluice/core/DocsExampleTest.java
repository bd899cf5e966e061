package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.Store;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The complete example of docs/configuration.md is valid and does what the page says. */
class DocsExampleTest {

    final VirtualClock clock = new VirtualClock(1_700_000_000_000_000L);
    final Store store = LocalStore.builder().clockForTesting(clock).build();
    final StoreGuard guard = StoreGuard.custom().clockForTesting(clock)
            .timeout(Duration.ofSeconds(10)).build();

    @AfterEach
    void closeStore() {
        store.close();
    }

    static String example() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "configuration.md"));
        int start = page.indexOf("```yaml\n") + "```yaml\n".length();
        return page.substring(start, page.indexOf("```", start));
    }

    @Test
    void theExampleDoesWhatThePageSays() throws Exception {
        PolicyLimiter limiter = PolicyLimiter.builder().config(PolicyConfig.parse(example(), "configuration.md"))
                .store(store).guard(guard).build();
        String pro = "b81d44c0-pro-customer-key";
        for (int i = 0; i < 100; i++) {
            assertThat(limiter.decide(ApiRequest.of(pro, "192.0.2.1", "GET", "/v1/things")).allowed()).isTrue();
        }
        assertThat(limiter.decide(ApiRequest.of(pro, "192.0.2.1", "GET", "/v1/things")).allowed()).isFalse();

        clock.advanceMicros(1_000_000);
        for (int i = 0; i < 6; i++) {
            PolicyDecision report = limiter.decide(ApiRequest.of(pro, "192.0.2.1", "POST", "/v1/reports"));
            assertThat(report.allowed()).isTrue();
            assertThat(report.cost()).isEqualTo(10);
        }
        PolicyDecision seventh = limiter.decide(ApiRequest.of(pro, "192.0.2.1", "POST", "/v1/reports"));
        assertThat(seventh.allowed()).isFalse();
        assertThat(seventh.decision().orElseThrow().binding().name()).isEqualTo("endpoint.reports.per-key.per-minute");

        assertThat(limiter.decide(ApiRequest.of(null, "2001:db8::1", "GET", "/v1/exports/9/a/b")).cost()).isEqualTo(5);
        assertThat(limiter.decide(ApiRequest.of("not-a-key", "192.0.2.1", "GET", "/")).allowed()).isFalse();

        // search has a per-key limit in shadow mode: 10 tokens a second, 2 per search.
        clock.advanceMicros(1_000_000);
        for (int i = 0; i < 5; i++) {
            PolicyDecision search = limiter.decide(ApiRequest.of(pro, "192.0.2.1", "GET", "/v1/search"));
            assertThat(search.allowed()).isTrue();
            assertThat(search.shadowDenied()).isFalse();
        }
        PolicyDecision shadow = limiter.decide(ApiRequest.of(pro, "192.0.2.1", "GET", "/v1/search"));
        assertThat(shadow.allowed()).isTrue();
        assertThat(shadow.shadowDenied()).isTrue();
        assertThat(shadow.decision().orElseThrow().binding().name()).isEqualTo("endpoint.search.per-key.per-second");
    }
}
