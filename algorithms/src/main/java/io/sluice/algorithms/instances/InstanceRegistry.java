package io.sluice.algorithms.instances;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The live instances of a grid store (Hazelcast, Ignite) as the value of one entry, changed
 * only by a {@link Heartbeat}'s beat on the entry's owner with the owner's clock: each
 * instance's id and the time (microseconds) its registration expires. The encoding is a
 * version byte (1), the number of instances, then each one's expiry and id.
 */
public final class InstanceRegistry {

    static final byte FORMAT_VERSION = 1;

    /** A registry after a beat: its new encoding ({@code null} when empty) and how many instances it holds. */
    public record Beaten(byte @Nullable [] registry, int instances) {
    }

    private InstanceRegistry() {
    }

    /**
     * Registers {@code instanceId} until {@code nowMicros + ttlMicros} (or, with {@code leave},
     * removes it) in {@code registry} (its encoding, or {@code null} when there is none yet) and
     * drops every registration that expired at {@code nowMicros}. A registry of a format this
     * version does not read is started anew: at worst the other instances are missed until
     * their next beat.
     */
    public static Beaten beat(byte @Nullable [] registry, String instanceId, long nowMicros, long ttlMicros,
                              boolean leave) {
        Map<String, Long> live = read(registry);
        live.values().removeIf(expiry -> expiry <= nowMicros);
        if (leave) {
            live.remove(instanceId);
        } else {
            live.put(instanceId, nowMicros + ttlMicros);
        }
        return new Beaten(live.isEmpty() ? null : write(live), live.size());
    }

    private static Map<String, Long> read(byte @Nullable [] registry) {
        Map<String, Long> live = new LinkedHashMap<>();
        if (registry == null || registry.length == 0 || registry[0] != FORMAT_VERSION) {
            return live;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(registry, 1, registry.length - 1))) {
            int count = in.readInt();
            for (int i = 0; i < count; i++) {
                long expiry = in.readLong();
                live.put(in.readUTF(), expiry);
            }
        } catch (IOException e) {
            // A truncated registry: start anew, as for an unknown format.
            live.clear();
        }
        return live;
    }

    private static byte[] write(Map<String, Long> live) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT_VERSION);
            out.writeInt(live.size());
            for (Map.Entry<String, Long> instance : live.entrySet()) {
                out.writeLong(instance.getValue());
                out.writeUTF(instance.getKey());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot happen: writing to memory", e);
        }
        return bytes.toByteArray();
    }
}
