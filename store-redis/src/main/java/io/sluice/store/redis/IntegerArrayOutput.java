package io.sluice.store.redis;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * The reply of a Sluice script, parsed straight into a {@code long[]}: one string of big-endian
 * 64-bit integers ({@code struct.pack}: a decision or a lease), or one integer (a give-back),
 * as one array of its own. Lettuce's script output would build a list of boxed {@code Long}s
 * per decision instead.
 *
 * <p>Any other reply (a string of another length, nil, an array) is an error of the command,
 * never a misread number.
 */
final class IntegerArrayOutput extends CommandOutput<String, String, long[]> {

    private static final long[] NONE = new long[0];

    IntegerArrayOutput() {
        super(StringCodec.UTF8, NONE);
    }

    @Override
    public void multi(int count) {
        setError("unexpected reply from a Sluice script: an array of " + count + " where one string or integer belongs");
    }

    @Override
    public void set(long integer) {
        output = new long[] {integer};
    }

    @Override
    public void set(@Nullable ByteBuffer bytes) {
        if (bytes != null && bytes.remaining() % Long.BYTES == 0) {
            long[] packed = new long[bytes.remaining() / Long.BYTES];
            // Big-endian, as struct.pack's '>' writes, read in place: a slice and a view of it
            // in that order were two buffers (about 110 bytes) per reply.
            boolean bigEndian = bytes.order() == ByteOrder.BIG_ENDIAN;
            for (int i = 0, at = bytes.position(); i < packed.length; i++, at += Long.BYTES) {
                long field = bytes.getLong(at);
                packed[i] = bigEndian ? field : Long.reverseBytes(field);
            }
            output = packed;
            return;
        }
        setError("unexpected reply from a Sluice script: a string or nil where integers belong: "
                + (bytes == null ? "nil" : StandardCharsets.UTF_8.decode(bytes)));
    }
}
