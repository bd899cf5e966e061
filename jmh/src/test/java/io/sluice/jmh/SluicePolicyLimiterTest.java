package io.sluice.jmh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.store.local.LocalStore;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * {@link SluicePolicyLimiter}: the key it names for a benchmark key is the one its store is asked
 * about, and it enforces every shape.
 */
class SluicePolicyLimiterTest {

    /** The local store, noting every key it is asked to decide. */
    private static final class KeysSeen implements Store {

        final Store real = LocalStore.builder().build();
        final Set<String> keys = ConcurrentHashMap.newKeySet();

        @Override
        public StoreCapabilities capabilities() {
            return real.capabilities();
        }

        @Override
        public boolean supports(Algorithm algorithm) {
            return real.supports(algorithm);
        }

        @Override
        public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
            keys.add(key);
            return real.tryAcquire(key, limits, cost);
        }

        @Override
        public Decision tryAcquireAndWait(String key, List<Limit> limits, long cost) {
            keys.add(key);
            return real.tryAcquireAndWait(key, limits, cost);
        }

        @Override
        public void close() {
            real.close();
        }
    }

    @Test
    void theStoreKeyNamedIsTheOneTheStoreDecides() {
        for (String key : List.of("key-0", "key-99999", "hot-key", "é-unicode-∑")) {
            KeysSeen store = new KeysSeen();
            try (Limiter limiter = new SluicePolicyLimiter(store, LimitShape.SINGLE)) {
                limiter.tryAcquire(key, 1);

                assertThat(store.keys).as(key).containsExactly(limiter.storeKey(key));
            }
        }
    }

    @Test
    void everyShapeIsEnforced() {
        for (LimitShape shape : LimitShape.values()) {
            try (Limiter limiter = new SluicePolicyLimiter(LocalStore.builder().build(), shape)) {
                assertThatCode(() -> DecisionBenchmark.checkAdmissions(limiter, shape)).as("%s", shape)
                        .doesNotThrowAnyException();
            }
        }
    }
}
