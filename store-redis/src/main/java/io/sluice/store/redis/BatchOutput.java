package io.sluice.store.redis;

import io.lettuce.core.codec.StringCodec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * The reply of decide-batch.lua: an array of one reply per decision, each parsed as
 * {@link IntegerArrayOutput} parses a decision's (a {@code long[]}), or the text of that
 * decision's error (a {@code String}). An error that is not inside the array (no script, no
 * function) is the whole command's. Anything else than an array of as many strings or errors
 * as decisions is an error of the command, never a misread decision.
 */
final class BatchOutput extends io.lettuce.core.output.CommandOutput<String, String, Object[]> {

    private int next = -1;

    BatchOutput(int decisions) {
        super(StringCodec.UTF8, new Object[decisions]);
    }

    @Override
    public void multi(int count) {
        if (next >= 0 || count != output.length) {
            setError("unexpected reply from the Sluice batch script: an array of " + count + " in a reply of "
                    + output.length + " decisions");
            return;
        }
        next = 0;
    }

    @Override
    public void set(@Nullable ByteBuffer bytes) {
        if (next >= 0 && next < output.length && bytes != null && bytes.remaining() % Long.BYTES == 0) {
            long[] packed = new long[bytes.remaining() / Long.BYTES];
            // Big-endian, as struct.pack's '>' writes; a slice, so Lettuce's buffer keeps its order.
            bytes.slice().order(ByteOrder.BIG_ENDIAN).asLongBuffer().get(packed);
            output[next++] = packed;
            return;
        }
        setError("unexpected reply from the Sluice batch script: "
                + (bytes == null ? "nil" : StandardCharsets.UTF_8.decode(bytes)) + " where a decision belongs");
    }

    @Override
    public void set(long integer) {
        setError("unexpected reply from the Sluice batch script: the integer " + integer + " where a decision belongs");
    }

    @Override
    public void setError(@Nullable ByteBuffer error) {
        if (next >= 0 && next < output.length) {
            // One decision's error: the others' replies stand.
            output[next++] = error == null ? "" : StandardCharsets.UTF_8.decode(error).toString();
            return;
        }
        super.setError(error);
    }

    @Override
    public void complete(int depth) {
        if (depth == 0 && !hasError() && next != output.length) {
            setError("unexpected reply from the Sluice batch script: " + Math.max(next, 0) + " replies for "
                    + output.length + " decisions");
        }
    }
}
