package io.sluice.store.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.FailurePolicy;
import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.Store;
import io.sluice.api.StoreProvider;
import io.sluice.testkit.UnreachableStore;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** The api module's limiter and builder, on the local store and on a store that fails. */
class RateLimiterTest {

    private static final Limit PER_SECOND = Limit.of(Algorithms.TOKEN_BUCKET, 2, Duration.ofSeconds(1));
    private static final Limit PER_DAY = Limit.of(Algorithms.FIXED_WINDOW, 1_000, Duration.ofDays(1));

    @Test
    void usesTheLocalStoreWhenNoneIsSet() {
        assertThat(ServiceLoader.load(StoreProvider.class).findFirst())
                .get().isInstanceOf(LocalStoreProvider.class);
        RateLimiter limiter = RateLimiter.builder().limit(PER_SECOND).limit(PER_DAY).build();

        assertThat(limiter.limits()).containsExactly(PER_SECOND, PER_DAY);
        assertThat(limiter.decide("client").allowed()).isTrue();
        assertThat(limiter.decide("client").allowed()).isTrue();
        Decision denied = limiter.decide("client");
        assertThat(denied.reason()).isEqualTo(Decision.Reason.LIMIT_EXCEEDED);
        assertThat(denied.binding()).isEqualTo(PER_SECOND);
    }

    @Test
    void aFailingStoreIsDeniedByDefault() {
        for (Store store : List.of(new UnreachableStore(), UnreachableStore.throwingAtOnce())) {
            RateLimiter limiter = RateLimiter.builder().limit(PER_SECOND).limit(PER_DAY).store(store).build();

            Decision decision = limiter.decide("client");
            assertThat(decision.allowed()).isFalse();
            assertThat(decision.reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
            assertThat(decision.binding()).isEqualTo(PER_SECOND);
            assertThat(decision.retryAfter()).isEmpty();
            assertThat(limiter.decideAsync("client", 1).toCompletableFuture().join()).isEqualTo(decision);
        }
    }

    @Test
    void aFailingStoreIsAdmittedWhenFailingOpen() {
        for (Store store : List.of(new UnreachableStore(), UnreachableStore.throwingAtOnce())) {
            RateLimiter limiter = RateLimiter.builder().limit(PER_SECOND).store(store)
                    .failurePolicy(FailurePolicy.FAIL_OPEN).build();

            Decision decision = limiter.decide("client", 3);
            assertThat(decision.allowed()).isTrue();
            assertThat(decision.reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
            assertThat(limiter.decideAsync("client", 1).toCompletableFuture().join()).isEqualTo(decision);
        }
    }

    @Test
    void aStoreFailureIsLoggedOnceAMinuteWithoutSluiceCore() {
        // Issue 9.6: this path turned failures into decisions without a word. With sluice-core on the
        // class path its layer logs and counts them; without it (here), this limiter logs them itself.
        Logger logger = Logger.getLogger(RateLimiter.class.getName());
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(capture);
        try {
            RateLimiter limiter = RateLimiter.builder().limit(PER_SECOND).store(new UnreachableStore()).build();
            limiter.decide("client");
            limiter.decide("client");
            assertThat(records).hasSize(1);
            assertThat(records.get(0).getMessage()).contains("failed; requests are denied meanwhile");
        } finally {
            logger.removeHandler(capture);
        }
    }

    @Test
    void theFallbackNeedsSluiceCore() {
        assertThatThrownBy(() -> RateLimiter.builder().limit(PER_SECOND.withFailurePolicy(FailurePolicy.FALLBACK))
                .build()).isInstanceOf(IllegalStateException.class).hasMessageContaining("sluice-core");
    }
}
