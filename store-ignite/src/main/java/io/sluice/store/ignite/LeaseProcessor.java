package io.sluice.store.ignite;

import io.sluice.algorithms.grid.GridLease;
import io.sluice.algorithms.grid.GridRequest;
import io.sluice.api.TimeSource;
import javax.cache.processor.MutableEntry;
import org.apache.ignite.Ignite;
import org.apache.ignite.cache.CacheEntryProcessor;
import org.apache.ignite.resources.IgniteInstanceResource;
import org.jspecify.annotations.Nullable;

/**
 * A lease, or the give-back of a lease's unused tokens, on one key's primary node, at the
 * primary's time, like {@link DecideProcessor}: the cache is atomic, so only the primary runs
 * it and the backups receive the written value with its expiry. Returns {@link GridLease}'s
 * answer (empty for a give-back).
 */
final class LeaseProcessor implements CacheEntryProcessor<String, byte[], long[]> {

    /** In {@code takenAtMicros}: this is a lease, not a give-back. */
    private static final long LEASE = Long.MIN_VALUE;

    private static final long serialVersionUID = 1L;

    /** {@link GridRequest#encode}'s bytes; the cost is the most tokens, or the unused ones. */
    private final byte[] request;
    /** The given-back lease's time, or {@link #LEASE}. */
    private final long takenAtMicros;

    @IgniteInstanceResource
    private transient @Nullable Ignite member;

    private LeaseProcessor(byte[] request, long takenAtMicros) {
        this.request = request;
        this.takenAtMicros = takenAtMicros;
    }

    /** A lease of at most the request's cost in tokens. */
    static LeaseProcessor lease(byte[] request) {
        return new LeaseProcessor(request, LEASE);
    }

    /** The give-back of the request's cost in unused tokens of a lease taken at {@code takenAtMicros}. */
    static LeaseProcessor giveBack(byte[] request, long takenAtMicros) {
        if (takenAtMicros == LEASE) {
            throw new IllegalArgumentException("not a lease's time: " + takenAtMicros);
        }
        return new LeaseProcessor(request, takenAtMicros);
    }

    @Override
    public long[] process(MutableEntry<String, byte[]> entry, Object... arguments) {
        StateExpiry.clear();
        GridRequest decoded = GridRequest.decode(request);
        TimeSource clock = decoded.usesMemberClock() ? MemberClock.of(member) : null;
        long now = clock != null ? clock.nowMicros() : decoded.callerNowMicros();
        GridLease.Outcome outcome = takenAtMicros == LEASE
                ? GridLease.lease(decoded, entry.getValue(), now)
                : GridLease.giveBack(decoded, takenAtMicros, entry.getValue(), now);
        if (outcome.write()) {
            byte[] state = outcome.state();
            if (state == null) {
                entry.remove();
            } else {
                if (clock != null && MemberClock.isSystem(clock)) {
                    // As DecideProcessor: a test's clock has no relation to Ignite's real time.
                    StateExpiry.handOver(outcome.ttlMicros());
                }
                entry.setValue(state);
            }
        }
        return outcome.reply();
    }
}
