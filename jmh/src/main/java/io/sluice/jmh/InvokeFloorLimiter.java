package io.sluice.jmh;

import java.util.concurrent.TimeUnit;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ModifiedExpiryPolicy;
import javax.cache.processor.MutableEntry;
import org.apache.ignite.IgniteCache;
import org.apache.ignite.cache.CacheAtomicityMode;
import org.apache.ignite.cache.CacheEntryProcessor;
import org.apache.ignite.cache.CacheWriteSynchronizationMode;
import org.apache.ignite.configuration.CacheConfiguration;

/**
 * The floor of an Ignite decision: one blocking {@code invoke} of a minimal token bucket
 * ({@code [tokens, last refill]}) on the key's primary, in a cache set up as Sluice's is
 * (atomic, one backup, full sync) and with the same affinity, so the keys' primaries are the
 * same node (each implementation runs in a fork of its own, so the floor has the cache's name
 * to itself). Like the other floors it enforces only the shape's first limit; not a peer.
 */
final class InvokeFloorLimiter implements Limiter {

    private final IgniteCache<String, long[]> buckets;
    private final TakeTokens takeOne;

    InvokeFloorLimiter(IgniteCluster cluster, LimitShape shape) {
        this.buckets = cluster.caller().getOrCreateCache(new CacheConfiguration<String, long[]>(IgniteImpl.CACHE)
                .setAtomicityMode(CacheAtomicityMode.ATOMIC)
                .setWriteSynchronizationMode(CacheWriteSynchronizationMode.FULL_SYNC)
                .setBackups(1)
                // A time to live as the stores give theirs: the longest a bucket takes to refill.
                .setExpiryPolicyFactory(ModifiedExpiryPolicy.factoryOf(new Duration(TimeUnit.SECONDS, 1))));
        LimitShape.Spec limit = shape.specs().get(0);
        long periodMicros = limit.period().toNanos() / 1_000;
        this.takeOne = new TakeTokens(limit.permits(), (periodMicros + limit.permits() - 1) / limit.permits());
    }

    @Override
    public boolean tryAcquire(String key, long cost) {
        if (cost != 1) {
            throw new IllegalArgumentException("the floor takes one token per request: " + cost);
        }
        return buckets.invoke(key, takeOne);
    }

    @Override
    public void close() {
        buckets.destroy();
    }

    /** Takes one token of a bucket kept as {@code [tokens, last refill]}, with the primary's clock. */
    static final class TakeTokens implements CacheEntryProcessor<String, long[], Boolean> {

        private static final long serialVersionUID = 1L;

        private final long capacity;
        private final long microsPerToken;

        TakeTokens(long capacity, long microsPerToken) {
            this.capacity = capacity;
            this.microsPerToken = microsPerToken;
        }

        @Override
        public Boolean process(MutableEntry<String, long[]> entry, Object... arguments) {
            long now = System.currentTimeMillis() * 1_000;
            long[] state = entry.getValue();
            long tokens = state == null ? capacity : state[0];
            long last = state == null ? now : state[1];
            if (now > last) {
                long refill = (now - last) / microsPerToken;
                tokens = Math.min(capacity, tokens + refill);
                last = tokens == capacity ? now : last + refill * microsPerToken;
            }
            if (tokens < 1) {
                return false;
            }
            entry.setValue(new long[] {tokens - 1, last});
            return true;
        }
    }
}
