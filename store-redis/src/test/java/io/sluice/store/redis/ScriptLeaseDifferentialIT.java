package io.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Algorithm;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * For random limits of the leasable algorithms, random states and random leases, lease.lua
 * and give-back.lua do exactly what {@link KeyState#lease} and {@link KeyState#giveBack} do:
 * the same lease (tokens, time, decision) and, after the lease and after a give-back later on
 * (in the lease's window or another), the same states with the same expiries, byte for byte
 * in {@link KeyState}'s encoding. One to three limits of mixed algorithms per case.
 */
class ScriptLeaseDifferentialIT extends ScriptDifferential {

    private static final List<Algorithm> LEASABLE = List.of(Algorithms.FIXED_WINDOW,
            Algorithms.SLIDING_WINDOW_COUNTER, Algorithms.TOKEN_BUCKET, Algorithms.GCRA);

    @Property(tries = 1500)
    void leaseAndGiveBackMatchKeyState(@ForAll("cases") Case request) {
        String identity = ScriptRig.newClient();
        byte[] key = ScriptRig.keyOf(identity);
        Map<String, StoredValue.Entry> before = new LinkedHashMap<>();
        for (int i = 0; i < request.limits.size(); i++) {
            if (request.states.get(i) != null) {
                before.put(request.limits.get(i).name(), new StoredValue.Entry(ScriptRig.FAR_FUTURE, request.states.get(i)));
            }
        }
        rig.hold(key, before, request.now);
        KeyState reference = KeyState.decode(keyState(before, request.now));

        Lease expected = reference.lease(request.limits, request.now, request.maxTokens);
        rig.clock.setMicros(request.now);
        Lease lease = rig.store.lease(identity, request.limits, request.maxTokens).toCompletableFuture().join();

        assertThat(lease).as("lease").isEqualTo(expected);
        assertThat(held(key, request.now)).as("states after the lease").isEqualTo(reference.encode());
        if (lease.tokens() == 0) {
            return;
        }

        long unused = request.unusedShare == 0 ? 0 : Math.max(1, (long) (lease.tokens() * request.unusedShare));
        Lease givenBack = new Lease(lease.tokens(), request.now - request.takenEarlierBy, lease.decision());
        long later = request.now + request.later;
        byte[] leased = rig.raw.get(key);
        rig.clock.setMicros(later);
        rig.store.giveBack(identity, request.limits, givenBack, unused).toCompletableFuture().join();
        if (unused == 0) {
            assertThat(rig.raw.get(key)).as("untouched by giving back nothing").isEqualTo(leased);
            return;
        }
        reference.giveBack(request.limits, later, givenBack.takenAtMicros(), unused);

        assertThat(held(key, later)).as("states after giving back " + unused + " at +" + request.later)
                .isEqualTo(reference.encode());
    }

    @Provide
    Arbitrary<Case> cases() {
        return Arbitraries.randomValue(random -> Case.random(random, 1 + random.nextInt(3)));
    }

    /**
     * The client's value in Redis as {@link KeyState}'s current encoding, without the states
     * expired at {@code now}: written in format 1, read and encoded again, as the reference is.
     */
    private static byte[] held(byte[] key, long now) {
        byte[] value = rig.raw.get(key);
        Map<String, StoredValue.Entry> entries = new LinkedHashMap<>();
        if (value != null) {
            StoredValue.decode(value).forEach((name, entry) -> {
                if (entry.expiresAt() > now) {
                    entries.put(name, entry);
                }
            });
        }
        return KeyState.decode(keyState(entries, now)).encode();
    }

    /** {@link KeyState}'s encoding of these entries (format 1: varints, zig-zag for signed ones). */
    private static byte[] keyState(Map<String, StoredValue.Entry> entries, long now) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(1);
        writeUnsigned(out, entries.size());
        entries.forEach((name, entry) -> {
            byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
            writeUnsigned(out, bytes.length);
            out.write(bytes, 0, bytes.length);
            writeUnsigned(out, zigZag(entry.expiresAt()));
            writeUnsigned(out, entry.state().length);
            for (long value : entry.state()) {
                writeUnsigned(out, zigZag(value));
            }
        });
        return out.toByteArray();
    }

    private static long zigZag(long value) {
        return (value << 1) ^ (value >> 63);
    }

    private static void writeUnsigned(ByteArrayOutputStream out, long value) {
        long rest = value;
        while ((rest & ~0x7FL) != 0) {
            out.write((int) ((rest & 0x7F) | 0x80));
            rest >>>= 7;
        }
        out.write((int) rest);
    }

    /** Limits, their states before the lease, the lease, and the give-back after it. */
    static final class Case {
        final List<Limit> limits = new ArrayList<>();
        final List<long[]> states = new ArrayList<>();
        long now;
        long maxTokens;
        /** The share of the lease's tokens given back (0: none). */
        double unusedShare;
        /** How long after the lease the tokens are given back. */
        long later;
        /** How much earlier than it really was the give-back says the lease was taken (another window). */
        long takenEarlierBy;

        static Case random(Random random, int limitCount) {
            Case request = new Case();
            request.now = ScriptRig.randomNow(random);
            long shortestPeriod = Long.MAX_VALUE;
            long largestCapacity = 1;
            for (int i = 0; i < limitCount; i++) {
                Algorithm algorithm = LEASABLE.get(random.nextInt(LEASABLE.size()));
                Limit limit = ScriptRig.randomLimit(random, algorithm).named("limit-" + i);
                request.limits.add(limit);
                shortestPeriod = Math.min(shortestPeriod, limit.periodMicros());
                largestCapacity = Math.max(largestCapacity, limit.burst());
                Limit writtenUnder = random.nextInt(5) == 0 ? ScriptRig.randomLimit(random, algorithm) : limit;
                request.states.add(ScriptRig.history(random, writtenUnder, request.now,
                        Math.max(1, Math.min(writtenUnder.burst(), 1_000) / 2)));
            }
            int choice = random.nextInt(10);
            request.maxTokens = choice == 0 ? Long.MAX_VALUE / 3
                    : choice == 1 ? 1
                    : 1 + (long) (random.nextDouble() * Math.min(2 * largestCapacity, 1_000_000));
            request.unusedShare = random.nextInt(5) == 0 ? 0 : random.nextDouble() * 1.0000001;
            request.later = random.nextInt(4) == 0 ? 0 : (long) (random.nextDouble() * 1.5 * shortestPeriod);
            request.takenEarlierBy = random.nextInt(5) == 0 ? (long) (random.nextDouble() * 2 * shortestPeriod) : 0;
            return request;
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder("now=" + now + " maxTokens=" + maxTokens + " unusedShare="
                    + unusedShare + " later=" + later + " takenEarlierBy=" + takenEarlierBy);
            for (int i = 0; i < limits.size(); i++) {
                text.append("\n  ").append(limits.get(i)).append(" state=").append(Arrays.toString(states.get(i)));
            }
            return text.toString();
        }
    }
}
