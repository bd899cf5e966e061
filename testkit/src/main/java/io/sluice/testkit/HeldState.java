package io.sluice.testkit;

import io.sluice.api.Limit;
import java.util.Arrays;
import java.util.Objects;

/**
 * The state one limit of a key holds, as the reference algorithm computed it: what the
 * conformance kit gives a {@link PreviousFormat.Writer} to write in a store's previous format.
 */
public final class HeldState {

    private final Limit limit;
    private final long[] state;
    private final long expiresAtMicros;

    HeldState(Limit limit, long[] state, long expiresAtMicros) {
        this.limit = Objects.requireNonNull(limit, "limit");
        this.state = state.clone();
        this.expiresAtMicros = expiresAtMicros;
    }

    /** The limit whose state this is. */
    public Limit limit() {
        return limit;
    }

    /** The algorithm's state, as {@link io.sluice.api.Algorithm#transition} returned it (a copy). */
    public long[] state() {
        return state.clone();
    }

    /**
     * When the state becomes equal to the fresh state, in microseconds since the epoch on the
     * store's clock: the moment of its last charge plus that charge's {@code resetAfter}.
     */
    public long expiresAtMicros() {
        return expiresAtMicros;
    }

    @Override
    public String toString() {
        return "HeldState[" + limit.name() + " " + Arrays.toString(state) + " until " + expiresAtMicros + "us]";
    }
}
