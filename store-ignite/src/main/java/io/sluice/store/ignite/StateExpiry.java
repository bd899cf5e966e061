package io.sluice.store.ignite;

import java.util.concurrent.TimeUnit;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;
import org.jspecify.annotations.Nullable;

/**
 * The cache's expiry policy: each write keeps a key exactly as long as its state matters.
 *
 * <p>A JCache expiry policy does not see the value, and a per-call policy is evaluated by the
 * caller before the request is sent. So the cache is configured with this policy, which each
 * node instantiates, and the entry processor hands it the time to live of the state it just
 * computed: Ignite runs the processor and then asks the policy for the new entry's expiry on
 * the same thread of the primary node, and sends the resulting expiry time to the backups.
 */
final class StateExpiry implements ExpiryPolicy {

    /** Creates the policy on each node; serialized into the cache configuration. */
    static final Factory FACTORY = new Factory();

    private static final ThreadLocal<Duration> HANDED_OVER = new ThreadLocal<>();

    private StateExpiry() {
    }

    /**
     * Called by the entry processor on the primary node right before it writes a state that
     * must be kept {@code ttlMicros} from now (rounded up to whole milliseconds, at least one).
     */
    static void handOver(long ttlMicros) {
        long ttlMillis = Math.max(1, (ttlMicros + 999) / 1_000);
        HANDED_OVER.set(new Duration(TimeUnit.MILLISECONDS, ttlMillis));
    }

    /** Forgets a time to live that was handed over but not used, before a processor runs. */
    static void clear() {
        HANDED_OVER.remove();
    }

    private static Duration take() {
        Duration ttl = HANDED_OVER.get();
        HANDED_OVER.remove();
        return ttl;
    }

    @Override
    public Duration getExpiryForCreation() {
        return take();
    }

    @Override
    public Duration getExpiryForUpdate() {
        return take();
    }

    @Override
    public @Nullable Duration getExpiryForAccess() {
        // Reading a state (a denied request) never extends its life.
        return null;
    }

    /** Serializable factory for the cache configuration; one policy per node suffices. */
    static final class Factory implements javax.cache.configuration.Factory<ExpiryPolicy> {

        private static final long serialVersionUID = 1L;

        @Override
        public ExpiryPolicy create() {
            return new StateExpiry();
        }

        @Override
        public String toString() {
            return "StateExpiry.Factory";
        }
    }
}
