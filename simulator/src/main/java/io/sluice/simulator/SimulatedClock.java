package io.sluice.simulator;

import io.sluice.api.TimeSource;

/**
 * The simulation's virtual time: it stands still until the simulation moves it to the next
 * request's arrival, so a run is deterministic and takes no wall-clock time to pass.
 */
final class SimulatedClock implements TimeSource {

    // Volatile because a store may read its clock from its own maintenance threads.
    private volatile long nowMicros;

    SimulatedClock(long startMicros) {
        this.nowMicros = startMicros;
    }

    @Override
    public long nowMicros() {
        return nowMicros;
    }

    /** Moves the clock to {@code micros}; time never goes back. */
    void advanceTo(long micros) {
        if (micros < nowMicros) {
            throw new IllegalArgumentException("the simulated clock cannot go back from " + nowMicros
                    + "us to " + micros + "us");
        }
        nowMicros = micros;
    }
}
