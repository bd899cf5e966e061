package io.sluice.api;

import java.util.OptionalInt;

/**
 * Optionally implemented by a {@link Store} that can tell how many limiter instances share
 * it (for example from the clients a cluster sees). The {@link FailurePolicy#FALLBACK}
 * divides each limit by this number when no number of instances was configured.
 */
public interface InstanceCount {

    /**
     * The number of limiter instances that share this store, as last known, or empty when
     * unknown. Called while the store is failing: it must answer from memory, without I/O.
     */
    OptionalInt instances();
}
