package io.sluice.store.ignite;

import io.sluice.algorithms.grid.GridRequest;
import io.sluice.api.TimeSource;
import javax.cache.processor.MutableEntry;
import org.apache.ignite.Ignite;
import org.apache.ignite.cache.CacheEntryProcessor;
import org.apache.ignite.resources.IgniteInstanceResource;
import org.jspecify.annotations.Nullable;

/**
 * Decides one request for one key on the key's primary node: decides the {@link GridRequest}
 * it carries on the key's state at the primary's time, and writes the new state when admitted.
 *
 * <p>The cache is atomic, so Ignite runs this once, on the primary, and sends the written value
 * (with its expiry time) to the backups; they never run it with their own clocks. The result is
 * the decision in {@link io.sluice.algorithms.grid.GridReply}'s form.
 */
final class DecideProcessor implements CacheEntryProcessor<String, byte[], long[]> {

    private static final long serialVersionUID = 2L;

    /** {@link GridRequest#encode}'s bytes. */
    private final byte[] request;

    @IgniteInstanceResource
    private transient @Nullable Ignite member;

    DecideProcessor(byte[] request) {
        this.request = request;
    }

    @Override
    public long[] process(MutableEntry<String, byte[]> entry, Object... arguments) {
        StateExpiry.clear();
        GridRequest decoded = GridRequest.decode(request);
        TimeSource clock = decoded.usesMemberClock() ? MemberClock.of(member) : null;
        long now = clock != null ? clock.nowMicros() : decoded.callerNowMicros();
        GridRequest.Outcome outcome = decoded.decide(entry.getValue(), now);
        if (outcome.write()) {
            byte[] state = outcome.state();
            if (state == null) {
                entry.remove();
            } else {
                if (clock != null && MemberClock.isSystem(clock)) {
                    // A test's clock has no relation to the real time Ignite expires by;
                    // under it the state is dropped by the algorithms' time alone.
                    StateExpiry.handOver(outcome.ttlMicros());
                }
                entry.setValue(state);
            }
        }
        return outcome.reply();
    }
}
