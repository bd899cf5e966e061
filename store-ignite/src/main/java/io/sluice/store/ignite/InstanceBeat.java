package io.sluice.store.ignite;

import io.sluice.algorithms.grid.GridRequest;
import io.sluice.algorithms.instances.InstanceRegistry;
import javax.cache.processor.MutableEntry;
import org.apache.ignite.Ignite;
import org.apache.ignite.cache.CacheEntryProcessor;
import org.apache.ignite.resources.IgniteInstanceResource;
import org.jspecify.annotations.Nullable;

/**
 * One beat of a store's heartbeat on the registry entry of its cache's instances: runs on the
 * entry's primary node, with that node's clock (or the test clock the caller read), changes
 * the registry as {@link InstanceRegistry#beat} says and returns how many instances are live.
 * The registry's cache is atomic, so backups receive the primary's bytes.
 */
final class InstanceBeat implements CacheEntryProcessor<String, byte[], Integer> {

    private static final long serialVersionUID = 1L;

    private final String instanceId;
    private final long ttlMicros;
    private final boolean leave;
    /** The caller's test clock's time, or {@link GridRequest#MEMBER_CLOCK}. */
    private final long nowMicros;

    @IgniteInstanceResource
    private transient @Nullable Ignite member;

    InstanceBeat(String instanceId, long ttlMicros, boolean leave, long nowMicros) {
        this.instanceId = instanceId;
        this.ttlMicros = ttlMicros;
        this.leave = leave;
        this.nowMicros = nowMicros;
    }

    @Override
    public Integer process(MutableEntry<String, byte[]> entry, Object... arguments) {
        long now = nowMicros == GridRequest.MEMBER_CLOCK ? MemberClock.of(member).nowMicros() : nowMicros;
        InstanceRegistry.Beaten beaten = InstanceRegistry.beat(entry.getValue(), instanceId, now, ttlMicros, leave);
        byte[] registry = beaten.registry();
        if (registry == null) {
            entry.remove();
        } else {
            entry.setValue(registry);
        }
        return beaten.instances();
    }
}
