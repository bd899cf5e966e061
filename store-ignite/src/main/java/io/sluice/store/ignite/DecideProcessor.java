package io.sluice.store.ignite;

import io.sluice.algorithms.grid.GridOperation;
import io.sluice.algorithms.grid.GridRequest;
import io.sluice.api.TimeSource;
import javax.cache.processor.MutableEntry;
import org.apache.ignite.Ignite;
import org.apache.ignite.cache.CacheEntryProcessor;

/**
 * One {@link GridOperation} (a decision, a lease or a give-back) on one key's primary node, at
 * the primary's time: runs it on the key's state and writes the new state when it changed.
 *
 * <p>The cache is atomic, so Ignite runs this once, on the primary, and sends the written value
 * (with its expiry time) to the backups; they never run it with their own clocks. The result is
 * the operation's answer ({@link io.sluice.algorithms.grid.GridReply}'s or
 * {@link io.sluice.algorithms.grid.GridLease}'s form). Its fields are read by name (Ignite's
 * binary marshaller; Java serialization for an earlier version's proxy, below), so a decision
 * sent by an earlier version (only its request) reads as a decision.
 *
 * <p>A decision sent with the chunks of long sliding logs and the acknowledgements of chunks
 * written ({@code GridOperation.withChunks}) runs the same way: its
 * request carries them, and the primary writes the key's head, which the backups receive.
 *
 * <p>It has no injected resource: the node comes from {@link MutableEntry#unwrap}. Ignite wraps
 * a processor with an {@code @IgniteInstanceResource} field in a proxy of its own, which it
 * marshals with its optimized (Java serialization) marshaller instead of the binary one, and
 * injects on every call: measured, that cost the caller and the primary more CPU per decision
 * than the plain {@code invoke} floor's processor.
 */
final class DecideProcessor implements CacheEntryProcessor<String, byte[], long[]> {

    private static final long serialVersionUID = 2L;

    /** {@link GridOperation#request()}'s bytes. */
    private final byte[] request;
    /** {@link GridOperation#leasing()}: false in what earlier versions sent. */
    private final boolean leasing;
    /** {@link GridOperation#leaseTime()}. */
    private final long leaseTime;

    DecideProcessor(GridOperation operation) {
        this.request = operation.request();
        this.leasing = operation.leasing();
        this.leaseTime = operation.leaseTime();
    }

    @Override
    public long[] process(MutableEntry<String, byte[]> entry, Object... arguments) {
        StateExpiry.clear();
        GridOperation operation = leasing
                ? GridOperation.leasingOnWire(request, leaseTime)
                : GridOperation.decisionOnWire(request);
        TimeSource clock = MemberClock.of(entry.unwrap(Ignite.class));
        GridRequest.Outcome outcome = operation.run(entry.getValue(), clock::nowMicros);
        if (outcome.write()) {
            byte[] state = outcome.state();
            if (state == null) {
                entry.remove();
            } else {
                if (operation.usesMemberClock() && MemberClock.isSystem(clock)) {
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
