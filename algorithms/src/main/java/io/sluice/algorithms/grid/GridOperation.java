package io.sluice.algorithms.grid;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.algorithms.LeaseArguments;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * One operation a grid store runs on the member that owns a key: a decision, a lease, or the
 * give-back of a lease's unused tokens. Built on the caller, with the arguments checked there
 * (so bad input is an {@link IllegalArgumentException} at the caller, never a store failure);
 * carried by the store's entry processor as its {@link #request()} bytes and its
 * {@link #leaseTime()}; {@linkplain #run run} on the member.
 */
public final class GridOperation {

    /** The {@link #leaseTime()} of a lease: it has no lease's time, a give-back has one. */
    public static final long LEASE = Long.MIN_VALUE;

    /**
     * The first byte of a batch's request, where a single request has
     * {@link GridRequest#FORMAT_VERSION}: a member of an older version refuses it as a format it
     * does not know.
     */
    static final byte BATCH_FORMAT = 2;

    /** The replies of no decision: a lone decision's before it is made. */
    private static final long[] NONE_DECIDED = {};

    private final byte[] request;
    private final boolean leasing;
    private final long leaseTime;
    /**
     * Whether this decision, or one of this batch's, has a sliding-log limit: only those are
     * sent with chunks ({@link #withChunks}). Known where the operation is built from limits; an
     * operation read on the wire ({@link #decisionOnWire}) is run, never sent, and says false.
     */
    private final boolean slidingLog;

    private GridOperation(byte[] request, boolean leasing, long leaseTime, boolean slidingLog) {
        this.request = Objects.requireNonNull(request, "request");
        this.leasing = leasing;
        this.leaseTime = leaseTime;
        this.slidingLog = slidingLog;
    }

    /**
     * A decision on a request of {@code cost} against {@code limits} at {@code nowMicros}
     * ({@link GridRequest#MEMBER_CLOCK}: at the member's time).
     *
     * @throws IllegalArgumentException naming the limit when its algorithm is not a built-in one
     */
    public static GridOperation decide(List<Limit> limits, long cost, long nowMicros) {
        return new GridOperation(GridRequest.encode(limits, cost, nowMicros), false, LEASE, hasSlidingLog(limits));
    }

    /**
     * A lease of at most {@code maxTokens}.
     *
     * @throws IllegalArgumentException as {@link LeaseArguments#checkLease}, or when a limit's
     *     algorithm is not a built-in one
     */
    public static GridOperation lease(List<Limit> limits, long maxTokens, long nowMicros) {
        LeaseArguments.checkLease(limits, maxTokens);
        return new GridOperation(GridRequest.encode(limits, maxTokens, nowMicros), true, LEASE, false);
    }

    /**
     * The give-back of {@code unusedTokens} of {@code lease}; {@code null} when there is nothing
     * to give back ({@code unusedTokens} 0), so nothing is to be sent.
     *
     * @throws IllegalArgumentException as {@link LeaseArguments#checkGiveBack}, or when the
     *     lease's time is {@link #LEASE} or a limit's algorithm is not a built-in one
     */
    public static @Nullable GridOperation giveBack(List<Limit> limits, Lease lease, long unusedTokens,
                                                   long nowMicros) {
        LeaseArguments.checkGiveBack(limits, lease, unusedTokens);
        if (unusedTokens == 0) {
            return null;
        }
        if (lease.takenAtMicros() == LEASE) {
            throw new IllegalArgumentException("not a lease's time: " + lease.takenAtMicros());
        }
        return new GridOperation(GridRequest.encode(limits, unusedTokens, nowMicros), true, lease.takenAtMicros(),
                false);
    }

    /**
     * Decisions on one key, run on its owner in this order as one operation, each on the state
     * the one before left: the request is {@link #BATCH_FORMAT}, their number, then each
     * decision's length and {@link #request()} bytes; the reply is their replies one after the
     * other ({@link GridReply#LENGTH} longs each), and the owner writes the last state once.
     */
    static GridOperation batch(List<GridOperation> decisions) {
        int bytes = 1 + Integer.BYTES;
        boolean slidingLog = false;
        for (GridOperation decision : decisions) {
            if (decision.leasing) {
                throw new IllegalArgumentException("only decisions are batched, not leases or give-backs");
            }
            bytes += Integer.BYTES + decision.request.length;
            slidingLog |= decision.slidingLog;
        }
        ByteBuffer request = ByteBuffer.allocate(bytes).put(BATCH_FORMAT).putInt(decisions.size());
        for (GridOperation decision : decisions) {
            request.putInt(decision.request.length).put(decision.request);
        }
        return new GridOperation(request.array(), false, LEASE, slidingLog);
    }

    /**
     * {@code decisions} (a decision or a {@linkplain #batch batch}) from a caller that handles
     * the chunks of long sliding logs: sent with the acknowledgements of the chunks it wrote
     * and the chunks it read ({@link GridChunks}), answered as a {@link GridChunks.Reply}.
     */
    static GridOperation withChunks(GridOperation decisions, List<GridChunks.Ack> acks,
                                    List<GridChunks.Chunk> chunks) {
        if (decisions.leasing || decisions.request[0] == GridChunks.CHUNKED_FORMAT) {
            throw new IllegalArgumentException("only a decision or a batch is sent with chunks");
        }
        return new GridOperation(GridChunks.encode(decisions.request, acks, chunks), false, LEASE,
                decisions.slidingLog);
    }

    /** The decisions of this decision (itself) or batch (its decisions), in order. */
    List<GridOperation> decisions() {
        if (leasing || request[0] == GridChunks.CHUNKED_FORMAT) {
            throw new IllegalArgumentException("not a decision or a batch");
        }
        if (request[0] != BATCH_FORMAT) {
            return List.of(this);
        }
        ByteBuffer in = ByteBuffer.wrap(request, 1, request.length - 1);
        int count = in.getInt();
        List<GridOperation> decisions = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int length = in.getInt();
            byte[] decision = Arrays.copyOfRange(request, in.position(), in.position() + length);
            decisions.add(new GridOperation(decision, false, LEASE,
                    hasSlidingLog(GridRequest.decode(decision).limits())));
            in.position(in.position() + length);
        }
        return decisions;
    }

    /** A decision as a member reads it: {@link #request()}'s bytes. */
    public static GridOperation decisionOnWire(byte[] request) {
        return new GridOperation(request, false, LEASE, false);
    }

    /** A lease or a give-back as a member reads it: {@link #request()}'s bytes and {@link #leaseTime()}. */
    public static GridOperation leasingOnWire(byte[] request, long leaseTime) {
        return new GridOperation(request, true, leaseTime, false);
    }

    private static boolean hasSlidingLog(List<Limit> limits) {
        for (int i = 0; i < limits.size(); i++) {
            if (Algorithms.SLIDING_LOG.equals(limits.get(i).algorithm())) {
                return true;
            }
        }
        return false;
    }

    /** {@link GridRequest#encode}'s bytes: the limits, the cost (or tokens) and the caller's time. */
    public byte[] request() {
        return request;
    }

    /**
     * Whether this decision built from limits, or one of this batch's, has a sliding-log limit,
     * so a store that keeps long logs as heads sends it with chunks ({@link ChunkedSends}); every
     * other decision goes as it is.
     */
    boolean slidingLog() {
        return slidingLog;
    }

    /** Whether this is a lease or a give-back (else a decision). */
    public boolean leasing() {
        return leasing;
    }

    /** A give-back's lease time; {@link #LEASE} for a lease (and a decision). */
    public long leaseTime() {
        return leaseTime;
    }

    /**
     * Runs the operation on a key's stored state, at the member's time ({@code memberClock},
     * in microseconds, read only when the request asks for it) or the caller's test time.
     *
     * @param stored the key's value, {@link io.sluice.algorithms.KeyState#encode()}'s bytes, or
     *     {@code null} when absent
     * @throws IllegalArgumentException when the request or the stored bytes cannot be read
     */
    public GridRequest.Outcome run(byte @Nullable [] stored, LongSupplier memberClock) {
        KeyState state = stored == null ? KeyState.empty() : KeyState.decode(stored);
        return step(state, stored, memberClock, true).encoded(state);
    }

    /**
     * As {@link #run}, on a key's state that a store holds in memory as its value rather than
     * as its encoding: the operation changes {@code state} itself, as an in-process store's
     * step does (a sliding log's admission is then amortised O(1), where {@link #run} encodes
     * the whole log), and nothing is encoded. The outcome's {@link GridRequest.Outcome#state()}
     * is always {@code null}: when it says to write, the store keeps {@code state} with the
     * outcome's time to live, or removes the entry when {@code state} {@linkplain
     * KeyState#isEmpty() is empty}. A request that cannot be read is refused before
     * {@code state} changes; a give-back is written whenever {@code state} holds anything.
     *
     * @param state the key's state ({@link KeyState#empty()} when absent), changed in place
     * @throws IllegalArgumentException when the request cannot be read
     */
    public GridRequest.Outcome runInPlace(KeyState state, LongSupplier memberClock) {
        GridRequest.Step step = step(state, null, memberClock, false);
        long ttlMicros = step.write() && !state.isEmpty() ? state.expiresAtMicros() - step.nowMicros() : 0;
        return new GridRequest.Outcome(step.reply(), step.write(), null, ttlMicros);
    }

    /**
     * The operation on {@code state}, decoded from {@code stored} or held in memory ({@code stored}
     * null); a request with chunks keeps long sliding logs as heads and chunks when
     * {@code chunked}, else as whole logs (a state held in memory is never encoded, so its log's
     * admission is amortised O(1) already).
     */
    private GridRequest.Step step(KeyState state, byte @Nullable [] stored, LongSupplier memberClock,
                                  boolean chunked) {
        if (!leasing && request.length > 0 && request[0] == BATCH_FORMAT) {
            return decideInOrder(state, readBatch(request), memberClock, null);
        }
        if (!leasing && request.length > 0 && request[0] == GridChunks.CHUNKED_FORMAT) {
            return runWithChunks(state, memberClock, chunked);
        }
        GridRequest decoded = GridRequest.decode(request);
        long now = decoded.usesMemberClock() ? memberClock.getAsLong() : decoded.callerNowMicros();
        if (!leasing) {
            return decoded.decideInPlace(state, now);
        }
        return leaseTime == LEASE
                ? GridLease.leaseInPlace(decoded, state, now)
                : GridLease.giveBackInPlace(decoded, leaseTime, state, stored, now);
    }

    /**
     * A request with chunks: its acknowledgements applied to {@code state} (when {@code chunked}),
     * then its decisions in order up to the first that needs a chunk the caller did not send.
     */
    private GridRequest.Step runWithChunks(KeyState state, LongSupplier memberClock, boolean chunked) {
        GridChunks.Request sent = GridChunks.Request.decode(request);
        byte[] decisions = sent.operation();
        GridRequest[] decoded = decisions[0] == BATCH_FORMAT
                ? readBatch(decisions) : new GridRequest[] {GridRequest.decode(decisions)};
        GridChunks.OnOwner chunks = new GridChunks.OnOwner(sent);
        boolean acked = chunked && sent.acknowledge(state);
        GridRequest.Step step = decideInOrder(state, decoded, memberClock, chunked ? chunks : null);
        long[] reply = chunks.encodedReply(step.reply());
        if (acked && !step.write()) {
            long now = decoded[0].usesMemberClock() ? memberClock.getAsLong() : decoded[0].callerNowMicros();
            return new GridRequest.Step(reply, true, now);
        }
        return new GridRequest.Step(reply, step.write(), step.nowMicros());
    }

    /**
     * {@code decisions} on one {@link KeyState}, charged in place as a store's in-process state
     * is, at the member's time read once (a batch is one operation under the key's lock); with
     * {@code chunks}, long sliding logs are heads and chunks and the decisions stop before the
     * first that needs a chunk. The reply is the decisions' replies, one after the other.
     */
    private static GridRequest.Step decideInOrder(KeyState state, GridRequest[] decisions, LongSupplier memberClock,
                                                  GridChunks.@Nullable OnOwner chunks) {
        long[] replies = decisions.length == 1 ? NONE_DECIDED : new long[decisions.length * GridReply.LENGTH];
        long memberNow = GridRequest.MEMBER_CLOCK;
        boolean write = false;
        long writtenAt = 0;
        int decided = 0;
        for (; decided < decisions.length; decided++) {
            GridRequest decoded = decisions[decided];
            long now = decoded.callerNowMicros();
            if (decoded.usesMemberClock()) {
                if (memberNow == GridRequest.MEMBER_CLOCK) {
                    memberNow = memberClock.getAsLong();
                }
                now = memberNow;
            }
            Decision decision;
            if (chunks == null) {
                decision = state.tryAcquire(decoded.limits(), now, decoded.cost());
            } else {
                chunks.decision(decided, decoded.limits());
                decision = state.tryAcquire(decoded.limits(), now, decoded.cost(), chunks);
                if (decision == null) {
                    break;
                }
            }
            long[] encoded = GridReply.encode(decision, decoded.limits());
            if (decisions.length == 1) {
                // A lone decision's reply is its own: no array of replies to copy it into.
                replies = encoded;
            } else {
                System.arraycopy(encoded, 0, replies, decided * GridReply.LENGTH, GridReply.LENGTH);
            }
            if (decision.allowed()) {
                write = true;
                writtenAt = now;
            }
        }
        long[] reply = decided == decisions.length ? replies : Arrays.copyOf(replies, decided * GridReply.LENGTH);
        return new GridRequest.Step(reply, write, writtenAt);
    }

    /** The decisions of this batch's request, each checked as {@link KeyState#tryAcquire} checks its arguments. */
    private static GridRequest[] readBatch(byte[] request) {
        try {
            ByteBuffer in = ByteBuffer.wrap(request, 1, request.length - 1);
            int count = in.getInt();
            if (count < 1 || count > in.remaining()) {
                throw new IllegalArgumentException("a batch of " + request.length + " bytes cannot hold "
                        + count + " decisions");
            }
            GridRequest[] decisions = new GridRequest[count];
            for (int i = 0; i < count; i++) {
                int length = in.getInt();
                if (length < 1 || length > in.remaining()) {
                    throw new IllegalArgumentException("a batch's decision of " + length + " bytes is truncated");
                }
                byte[] one = Arrays.copyOfRange(request, in.position(), in.position() + length);
                in.position(in.position() + length);
                if (one[0] == BATCH_FORMAT) {
                    throw new IllegalArgumentException("a batch within a batch");
                }
                decisions[i] = GridRequest.decode(one);
                if (decisions[i].cost() < 1) {
                    throw new IllegalArgumentException("a batch's decision has a cost below 1: " + decisions[i].cost());
                }
            }
            if (in.hasRemaining()) {
                throw new IllegalArgumentException("a batch has " + in.remaining() + " trailing bytes");
            }
            return decisions;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("a batch of " + request.length + " bytes is truncated", e);
        }
    }

    /**
     * Whether {@link #run} decides at the member's time (else at the caller's test time). A
     * batch's last bytes are its last decision's, and a store decides all its decisions at one
     * clock.
     */
    public boolean usesMemberClock() {
        return GridRequest.usesMemberClock(request);
    }
}
