package io.sluice.algorithms.grid;

import io.sluice.algorithms.LeaseArguments;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
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

    private final byte[] request;
    private final boolean leasing;
    private final long leaseTime;

    private GridOperation(byte[] request, boolean leasing, long leaseTime) {
        this.request = Objects.requireNonNull(request, "request");
        this.leasing = leasing;
        this.leaseTime = leaseTime;
    }

    /**
     * A decision on a request of {@code cost} against {@code limits} at {@code nowMicros}
     * ({@link GridRequest#MEMBER_CLOCK}: at the member's time).
     *
     * @throws IllegalArgumentException naming the limit when its algorithm is not a built-in one
     */
    public static GridOperation decide(List<Limit> limits, long cost, long nowMicros) {
        return new GridOperation(GridRequest.encode(limits, cost, nowMicros), false, LEASE);
    }

    /**
     * A lease of at most {@code maxTokens}.
     *
     * @throws IllegalArgumentException as {@link LeaseArguments#checkLease}, or when a limit's
     *     algorithm is not a built-in one
     */
    public static GridOperation lease(List<Limit> limits, long maxTokens, long nowMicros) {
        LeaseArguments.checkLease(limits, maxTokens);
        return new GridOperation(GridRequest.encode(limits, maxTokens, nowMicros), true, LEASE);
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
        return new GridOperation(GridRequest.encode(limits, unusedTokens, nowMicros), true, lease.takenAtMicros());
    }

    /** A decision as a member reads it: {@link #request()}'s bytes. */
    public static GridOperation decisionOnWire(byte[] request) {
        return new GridOperation(request, false, LEASE);
    }

    /** A lease or a give-back as a member reads it: {@link #request()}'s bytes and {@link #leaseTime()}. */
    public static GridOperation leasingOnWire(byte[] request, long leaseTime) {
        return new GridOperation(request, true, leaseTime);
    }

    /** {@link GridRequest#encode}'s bytes: the limits, the cost (or tokens) and the caller's time. */
    public byte[] request() {
        return request;
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
        GridRequest decoded = GridRequest.decode(request);
        long now = decoded.usesMemberClock() ? memberClock.getAsLong() : decoded.callerNowMicros();
        if (!leasing) {
            return decoded.decide(stored, now);
        }
        return leaseTime == LEASE
                ? GridLease.lease(decoded, stored, now)
                : GridLease.giveBack(decoded, leaseTime, stored, now);
    }

    /** Whether {@link #run} decides at the member's time (else at the caller's test time). */
    public boolean usesMemberClock() {
        return GridRequest.usesMemberClock(request);
    }
}
