package io.sluice.store.ignite;

import io.sluice.algorithms.KeyState;
import io.sluice.algorithms.grid.GridRequest;
import javax.cache.processor.MutableEntry;
import org.apache.ignite.Ignite;
import org.apache.ignite.cache.CacheEntryProcessor;
import org.apache.ignite.resources.IgniteInstanceResource;

/**
 * Tells, on the key's primary node and at its time, whether the key still holds state for one
 * limit. Reads only: an entry that is not set is not written.
 */
final class HoldsStateProcessor implements CacheEntryProcessor<String, byte[], Boolean> {

    private static final long serialVersionUID = 1L;

    private final String limitName;
    private final long fixedNowMicros;

    @IgniteInstanceResource
    private transient Ignite member;

    HoldsStateProcessor(String limitName, long fixedNowMicros) {
        this.limitName = limitName;
        this.fixedNowMicros = fixedNowMicros;
    }

    @Override
    public Boolean process(MutableEntry<String, byte[]> entry, Object... arguments) {
        byte[] stored = entry.getValue();
        if (stored == null) {
            return false;
        }
        long now = fixedNowMicros != GridRequest.MEMBER_CLOCK
                ? fixedNowMicros : MemberClock.of(member).nowMicros();
        return KeyState.decode(stored).holds(limitName, now);
    }
}
