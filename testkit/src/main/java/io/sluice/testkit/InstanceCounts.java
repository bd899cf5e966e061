package io.sluice.testkit;

import io.sluice.api.InstanceCount;
import io.sluice.api.Store;
import java.time.Duration;
import java.util.OptionalInt;

/**
 * Waiting for a store's count of instances ({@link InstanceCount}), which its heartbeat
 * updates in the background, in real time: what the shared stores' tests of counting share.
 */
public final class InstanceCounts {

    /** The longest wait for a count, generous for a loaded CI machine. */
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private InstanceCounts() {
    }

    /**
     * Waits until {@code store}, an {@link InstanceCount}, counts {@code expected} instances,
     * looking again every {@code poll}.
     *
     * @throws AssertionError when it still counts otherwise after 60 seconds (saying what it
     *     counts), or when the wait is interrupted
     * @throws ClassCastException when the store does not count instances
     */
    public static void await(Store store, int expected, Duration poll) {
        InstanceCount counted = (InstanceCount) store;
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!counted.instances().equals(OptionalInt.of(expected))) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("waited " + PATIENCE + " for " + expected + " instances, have "
                        + counted.instances());
            }
            try {
                Thread.sleep(poll.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + expected + " instances", e);
            }
        }
    }
}
