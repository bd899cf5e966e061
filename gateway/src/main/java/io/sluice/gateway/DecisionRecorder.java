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

    /**
     * The decision time's histogram buckets (upper bounds): around the limiter's targets (0.1 ms
     * added from a lease or the block cache, 1 ms on Redis) up to the store's default timeout.
     */
    static final Duration[] DECISION_BUCKETS = {Duration.ofNanos(25_000), Duration.ofNanos(50_000),
        Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000), Duration.ofMillis(1),
        Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
        Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofSeconds(1)};

    /** The last decision seen for a client. */
    record Seen(Instant at, HttpVerdict.Outcome outcome, @Nullable Decision decision) {
    }

    /** A client's entry in the cache, whose last decision each of its requests replaces. */
    private static final class LastSeen {
        volatile @Nullable Seen seen;
    }

    private final Map<HttpVerdict.Outcome, Counter> outcomes = new EnumMap<>(HttpVerdict.Outcome.class);
    private final Timer decisionTime;
    private final TopDenied topDenied;
    /**
     * Read on every request, written only for a client it does not hold: a client seen again
     * gets its new {@link Seen} in the entry it has, so that the cache's write path (its write
     * buffer, and the maintenance that drains it) runs once per client, not per request; that
     * was a third of the limiter's own CPU per request. Expiring after access keeps what
     * expiring after write kept before, when every request wrote: a client not seen for an hour
     * is forgotten. Maintenance runs on the calling thread: on the common pool (Caffeine's
     * default) it woke a pool thread, one more thread to schedule on a busy machine.
     */
    private final Cache<String, LastSeen> lastSeen = Caffeine.newBuilder().maximumSize(LAST_SEEN_CLIENTS)
            .expireAfterAccess(Duration.ofHours(1)).executor(Runnable::run).build();

    DecisionRecorder(MeterRegistry registry, TopDenied topDenied) {
        for (HttpVerdict.Outcome outcome : HttpVerdict.Outcome.values()) {
            outcomes.put(outcome, Counter.builder("sluice.gateway.requests")
                    .description("Requests the gateway decided, by outcome")
                    .tag("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT)).register(registry));
        }
        // Buckets, from which Prometheus computes percentiles over any range and any set of gateways,
        // not percentiles computed here: those recorded every request into a window of histograms.
        this.decisionTime = Timer.builder("sluice.gateway.decision")
                .description("Time from a request's arrival to its rate-limit verdict (the limiter's added latency)")
                .serviceLevelObjectives(DECISION_BUCKETS).register(registry);
        this.topDenied = topDenied;
    }

    void record(HttpVerdict verdict, long nanos) {
        decisionTime.record(nanos, TimeUnit.NANOSECONDS);
        Objects.requireNonNull(outcomes.get(verdict.outcome()), "outcome counter").increment();
        String client = verdict.client();
        if (verdict.outcome() == HttpVerdict.Outcome.DENIED || verdict.outcome() == HttpVerdict.Outcome.UNAUTHORIZED) {
            topDenied.record(client);
        }
        Seen seen = new Seen(Instant.now(), verdict.outcome(), verdict.decision().decision().orElse(null));
        LastSeen entry = lastSeen.getIfPresent(client);
        if (entry == null) {
            // Two threads may both miss: the cache keeps one entry, which one of them then writes.
            entry = lastSeen.get(client, unused -> new LastSeen());
        }
        entry.seen = seen;
    }

    Optional<Seen> lastSeen(String client) {
        LastSeen entry = lastSeen.getIfPresent(client);
        return entry == null ? Optional.empty() : Optional.ofNullable(entry.seen);
    }

    TopDenied topDenied() {
        return topDenied;
    }
}
