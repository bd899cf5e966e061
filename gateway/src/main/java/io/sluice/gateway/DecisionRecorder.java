package io.sluice.gateway;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sluice.api.Decision;
import io.sluice.http.HttpVerdict;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * What the gateway remembers of its decisions, all in bounded memory: counts by outcome and the
 * decision time (Micrometer, never a tag per client), the most denied clients (a Space-Saving
 * sketch), and the last decision for each of the most recent clients (for /admin/explain).
 */
final class DecisionRecorder {

    /** How many clients' last decisions are kept. */
    static final int LAST_SEEN_CLIENTS = 10_000;

    /** The last decision seen for a client. */
    record Seen(Instant at, HttpVerdict.Outcome outcome, @Nullable Decision decision) {
    }

    private final Map<HttpVerdict.Outcome, Counter> outcomes = new EnumMap<>(HttpVerdict.Outcome.class);
    private final Timer decisionTime;
    private final TopDenied topDenied;
    /**
     * Written on every request: its maintenance runs on the writing thread. On the common pool
     * (Caffeine's default), about one write in three woke a pool thread to drain the write buffer,
     * one more thread to schedule per request on a machine whose CPUs are already busy.
     */
    private final Cache<String, Seen> lastSeen = Caffeine.newBuilder().maximumSize(LAST_SEEN_CLIENTS)
            .expireAfterWrite(Duration.ofHours(1)).executor(Runnable::run).build();

    DecisionRecorder(MeterRegistry registry, TopDenied topDenied) {
        for (HttpVerdict.Outcome outcome : HttpVerdict.Outcome.values()) {
            outcomes.put(outcome, Counter.builder("sluice.gateway.requests")
                    .description("Requests the gateway decided, by outcome")
                    .tag("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT)).register(registry));
        }
        this.decisionTime = Timer.builder("sluice.gateway.decision")
                .description("Time from a request's arrival to its rate-limit verdict (the limiter's added latency)")
                .publishPercentiles(0.5, 0.99).register(registry);
        this.topDenied = topDenied;
    }

    void record(HttpVerdict verdict, long nanos) {
        decisionTime.record(nanos, TimeUnit.NANOSECONDS);
        Objects.requireNonNull(outcomes.get(verdict.outcome()), "outcome counter").increment();
        String client = verdict.client();
        if (verdict.outcome() == HttpVerdict.Outcome.DENIED || verdict.outcome() == HttpVerdict.Outcome.UNAUTHORIZED) {
            topDenied.record(client);
        }
        lastSeen.put(client, new Seen(Instant.now(), verdict.outcome(), verdict.decision().decision().orElse(null)));
    }

    Optional<Seen> lastSeen(String client) {
        return Optional.ofNullable(lastSeen.getIfPresent(client));
    }

    TopDenied topDenied() {
        return topDenied;
    }
}
