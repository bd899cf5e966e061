package io.sluice.algorithms;

import io.sluice.api.Limit;
import org.jspecify.annotations.Nullable;

/**
 * An algorithm whose state can take back the unused tokens of a lease without ever admitting
 * more than if those tokens had never been taken: what {@link KeyState#giveBack} calls.
 * The sliding log has none: a lease charges its tokens at the lease's time, which a log
 * would forget a period later although they may be spent later still.
 */
interface LeaseReturn {

    /**
     * The state after {@code unused} tokens of a lease taken at {@code takenAtMicros} are
     * given back at {@code nowMicros}, or {@code null} when none can be (the state stays).
     *
     * @param state the stored state, or {@code null} when none is stored
     * @param unused at least 1
     */
    long @Nullable [] giveBack(long @Nullable [] state, long nowMicros, Limit limit, long takenAtMicros, long unused);
}
