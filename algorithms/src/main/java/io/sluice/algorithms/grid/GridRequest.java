package io.sluice.algorithms.grid;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * One decision as a grid store sends it to the member that owns the key, and the step that
 * member runs on the key's stored {@link KeyState}.
 *
 * <p>The wire form is a byte array: a format byte, the number of limits, per limit its name,
 * its algorithm's {@linkplain io.sluice.api.Algorithm#id() id}, permits, burst and period in
 * microseconds, then the cost and the time to decide at ({@link #MEMBER_CLOCK} for the
 * member's own clock). Only the built-in algorithms travel: the member rebuilds each limit
 * from its algorithm's id, with the checks {@link Limit} makes when it is created.
 */
public final class GridRequest {

    /** The time of a request that the member decides with its own clock (the authoritative one). */
    public static final long MEMBER_CLOCK = Long.MIN_VALUE;

    /** The first byte of every request; a member reads only the versions it knows. */
    static final byte FORMAT_VERSION = 1;

    /** The cost and the time: the two longs at the end of every request. */
    private static final int TAIL_BYTES = 16;

    /** How many sets of limits a member keeps decoded (a fleet's rules, not its clients). */
    static final int DECODED_LIMITS_KEPT = 1_024;

    /**
     * The limits' part of a request, as decoded on this member: decoding and checking them
     * again (names against a pattern, algorithms' parameters) costs more than the decision.
     */
    private static final ConcurrentHashMap<LimitsBytes, List<Limit>> DECODED = new ConcurrentHashMap<>();

    /** The last limits encoded in this JVM and their bytes: a limiter sends the same limits every time. */
    private static volatile @Nullable EncodedLimits lastEncoded;

    /** Limits (the very objects, in order: a list may be changed after it was encoded) and their bytes. */
    private record EncodedLimits(Limit[] limits, byte[] bytes) {

        boolean sameAs(List<Limit> others) {
            if (others.size() != limits.length) {
                return false;
            }
            for (int i = 0; i < limits.length; i++) {
                if (others.get(i) != limits[i]) {
                    return false;
                }
            }
            return true;
        }
    }

    private final List<Limit> limits;
    private final long cost;
    private final long nowMicros;

    private GridRequest(List<Limit> limits, long cost, long nowMicros) {
        this.limits = limits;
        this.cost = cost;
        this.nowMicros = nowMicros;
    }

    /**
     * The wire form of a request of {@code cost} against {@code limits} at {@code nowMicros}
     * ({@link #MEMBER_CLOCK}: at the member's time).
     *
     * @throws IllegalArgumentException naming the limit when its algorithm is not a built-in one
     */
    public static byte[] encode(List<Limit> limits, long cost, long nowMicros) {
        Objects.requireNonNull(limits, "limits");
        EncodedLimits encoded = lastEncoded;
        if (encoded == null || !encoded.sameAs(limits)) {
            encoded = new EncodedLimits(limits.toArray(new Limit[0]), encodeLimits(limits));
            lastEncoded = encoded;
        }
        byte[] head = encoded.bytes();
        byte[] request = Arrays.copyOf(head, head.length + TAIL_BYTES);
        ByteBuffer.wrap(request, head.length, TAIL_BYTES).putLong(cost).putLong(nowMicros);
        return request;
    }

    private static byte[] encodeLimits(List<Limit> limits) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + 48 * limits.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT_VERSION);
            out.writeInt(limits.size());
            for (Limit limit : limits) {
                if (!Algorithms.isBuiltIn(limit.algorithm())) {
                    throw new IllegalArgumentException("a grid store runs only the built-in algorithms, not '"
                            + limit.algorithm().name() + "' (" + limit.algorithm().getClass().getName()
                            + ") of limit " + limit.name());
                }
                out.writeUTF(limit.name());
                out.writeInt(limit.algorithm().id());
                out.writeLong(limit.permits());
                out.writeLong(limit.burst());
                out.writeLong(limit.periodMicros());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    /**
     * Reads what {@link #encode} wrote.
     *
     * @throws IllegalArgumentException when the bytes are not a request of a known version, or
     *     name an algorithm or limit this member cannot build
     */
    public static GridRequest decode(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length < 1 + TAIL_BYTES) {
            throw new IllegalArgumentException("a grid request of " + bytes.length + " bytes is truncated");
        }
        int head = bytes.length - TAIL_BYTES;
        List<Limit> limits = DECODED.get(new LimitsBytes(bytes, head));
        if (limits == null) {
            limits = decodeLimits(bytes, head);
            if (DECODED.size() >= DECODED_LIMITS_KEPT) {
                DECODED.clear();
            }
            DECODED.put(new LimitsBytes(Arrays.copyOf(bytes, head), head), limits);
        }
        ByteBuffer tail = ByteBuffer.wrap(bytes, head, TAIL_BYTES);
        return new GridRequest(limits, tail.getLong(), tail.getLong());
    }

    private static List<Limit> decodeLimits(byte[] bytes, int length) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 0, length))) {
            int version = in.readByte();
            if (version != FORMAT_VERSION) {
                throw new IllegalArgumentException("unknown grid request format version " + version
                        + ": a member with an older sluice-algorithms than the caller's?");
            }
            int count = in.readInt();
            if (count < 1 || count > length) {
                throw new IllegalArgumentException("a grid request of " + bytes.length + " bytes cannot hold "
                        + count + " limits");
            }
            List<Limit> limits = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String name = in.readUTF();
                int algorithm = in.readInt();
                long permits = in.readLong();
                long burst = in.readLong();
                long periodMicros = in.readLong();
                Limit limit = Limit.of(Algorithms.byId(algorithm), permits,
                        Duration.of(periodMicros, ChronoUnit.MICROS));
                if (burst != permits) {
                    limit = limit.withBurst(burst);
                }
                limits.add(limit.named(name));
            }
            if (in.available() != 0) {
                throw new IllegalArgumentException("a grid request has " + in.available() + " trailing bytes");
            }
            return List.copyOf(limits);
        } catch (IOException e) {
            throw new IllegalArgumentException("a grid request of " + bytes.length + " bytes is truncated", e);
        }
    }

    /** The first {@code length} bytes of an array, compared by content: the key of {@link #DECODED}. */
    private static final class LimitsBytes {

        private final byte[] bytes;
        private final int length;
        private final int hash;

        LimitsBytes(byte[] bytes, int length) {
            this.bytes = bytes;
            this.length = length;
            int h = 1;
            for (int i = 0; i < length; i++) {
                h = 31 * h + bytes[i];
            }
            this.hash = h;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof LimitsBytes other && other.hash == hash
                    && Arrays.equals(bytes, 0, length, other.bytes, 0, other.length);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** The limits, rebuilt on this member, in the caller's order. */
    public List<Limit> limits() {
        return limits;
    }

    /** The request's cost. */
    public long cost() {
        return cost;
    }

    /** Whether the member decides with its own clock (else with the caller's test clock). */
    public boolean usesMemberClock() {
        return nowMicros == MEMBER_CLOCK;
    }

    /** Whether the request {@link #encode} wrote is decided with the member's clock, read without decoding it. */
    static boolean usesMemberClock(byte[] request) {
        return request.length >= TAIL_BYTES
                && ByteBuffer.wrap(request, request.length - Long.BYTES, Long.BYTES).getLong() == MEMBER_CLOCK;
    }

    /** The caller's time to decide at; meaningful only when not {@linkplain #usesMemberClock() the member's}. */
    public long callerNowMicros() {
        return nowMicros;
    }

    /** Decides this request on {@code state} at {@code nowMicros}, charging it in place when admitted. */
    Step decideInPlace(KeyState state, long nowMicros) {
        Decision decision = state.tryAcquire(limits, nowMicros, cost);
        return new Step(GridReply.encode(decision, limits), decision.allowed(), nowMicros);
    }

    /** What a member answers and stores after {@code state} admitted at {@code nowMicros}. */
    private static Outcome written(long[] reply, KeyState state, long nowMicros) {
        if (state.isEmpty()) {
            return new Outcome(reply, true, null, 0);
        }
        return new Outcome(reply, true, state.encode(), state.expiresAtMicros() - nowMicros);
    }

    /**
     * What an operation did to a {@link KeyState} it changed in place: the answer, whether the
     * state changed (so it must be stored), and the time the operation ran at.
     */
    record Step(long[] reply, boolean write, long nowMicros) {

        /** This step's outcome, the changed {@code state} encoded to be stored. */
        Outcome encoded(KeyState state) {
            return write ? written(reply, state, nowMicros) : new Outcome(reply, false, null, 0);
        }
    }

    /**
     * What a member answers and stores after a decision, a lease or a give-back.
     *
     * @param reply the answer for the caller ({@link GridReply}'s or {@link GridLease}'s form)
     * @param write whether the state changed, so the entry must be written
     * @param state the bytes to store when {@code write}; {@code null} to remove the entry
     * @param ttlMicros how long the written state matters: its limits are all fully reset after it
     */
    public record Outcome(long[] reply, boolean write, byte @Nullable [] state, long ttlMicros) {
    }
}
