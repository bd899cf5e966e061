package io.sluice.algorithms.grid;

import io.sluice.algorithms.KeyState;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The leasing operations ({@link io.sluice.api.Store#lease}, {@link io.sluice.api.Store#giveBack})
 * as a grid store runs them on the member that owns the key, with {@link KeyState#lease} and
 * {@link KeyState#giveBack}: the steps, and the wire form of a lease's answer.
 *
 * <p>The request travels as a {@link GridRequest} whose cost is the lease's most tokens, or
 * the unused tokens given back; a give-back also carries the lease's time, which the caller
 * sends next to it. The answer to a lease is its tokens, its time, then the decision in
 * {@link GridReply}'s form.
 */
public final class GridLease {

    /** Tokens and time before the decision in a lease's answer. */
    private static final int HEAD = 2;

    private GridLease() {
    }

    /**
     * Takes a lease of at most {@code request.cost()} tokens from a key's state at
     * {@code nowMicros} ({@link KeyState#lease}), charged in place.
     *
     * @throws IllegalArgumentException when a limit cannot be leased
     */
    static GridRequest.Step leaseInPlace(GridRequest request, KeyState state, long nowMicros) {
        Lease lease = state.lease(request.limits(), nowMicros, request.cost());
        return new GridRequest.Step(encode(lease, request.limits()), lease.tokens() != 0, nowMicros);
    }

    /**
     * Gives back {@code request.cost()} unused tokens of a lease taken at {@code takenAtMicros}
     * to a key's state at {@code nowMicros} ({@link KeyState#giveBack}), changed in place, and
     * says whether to store it: not when no limit took any back. The answer is empty.
     * {@code stored} is the encoding it was decoded from, which tells whether a limit took
     * tokens back, or {@code null} for a state held in memory: that one is written whenever it
     * holds a state (a give-back of a lease's tokens mostly changes it).
     */
    static GridRequest.Step giveBackInPlace(GridRequest request, long takenAtMicros, KeyState state,
                                     byte @Nullable [] stored, long nowMicros) {
        long[] reply = new long[0];
        if (state.isEmpty()) {
            return new GridRequest.Step(reply, false, nowMicros);
        }
        state.giveBack(request.limits(), nowMicros, takenAtMicros, request.cost());
        boolean unchanged = stored != null && !state.isEmpty() && Arrays.equals(state.encode(), stored);
        return new GridRequest.Step(reply, !unchanged, nowMicros);
    }

    /** A lease as a member answers it: tokens, time, then the decision in {@link GridReply}'s form. */
    static long[] encode(Lease lease, List<Limit> limits) {
        long[] decision = GridReply.encode(lease.decision(), limits);
        long[] reply = new long[HEAD + decision.length];
        reply[0] = lease.tokens();
        reply[1] = lease.takenAtMicros();
        System.arraycopy(decision, 0, reply, HEAD, decision.length);
        return reply;
    }

    /**
     * The lease a member answered, its decision bound to the caller's {@code limits}.
     *
     * @throws IllegalArgumentException when the reply is not one a member gives for these limits
     */
    public static Lease decode(long[] reply, List<Limit> limits) {
        Objects.requireNonNull(reply, "reply");
        if (reply.length <= HEAD) {
            throw new IllegalArgumentException("not a lease's reply: " + Arrays.toString(reply));
        }
        return new Lease(reply[0], reply[1], GridReply.decode(Arrays.copyOfRange(reply, HEAD, reply.length), limits));
    }

}
