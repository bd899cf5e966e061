package io.sluice.simulator;

import io.sluice.api.Store;
import io.sluice.api.TimeSource;
import java.time.Duration;

/**
 * Where a simulation's stores come from: the in-process store, a Redis the user runs, or an
 * embedded Hazelcast or Ignite member the command started. Open for one command; closing it
 * stops what the command started.
 */
interface StoreBackend extends AutoCloseable {

    /** How long one store call may take, in wall-clock time, before it fails as unavailable. */
    Duration CALL_TIMEOUT = Duration.ofSeconds(2);

    /** A store whose decisions use {@code clock}. */
    Store open(TimeSource clock);

    /** Stops what this backend started; stores opened from it are unusable afterwards. */
    @Override
    void close();
}
