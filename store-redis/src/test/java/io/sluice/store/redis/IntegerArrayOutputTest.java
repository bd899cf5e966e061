package io.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The reply of a script as RESP hands it to the output: one integer, or one string of packed
 * big-endian 64-bit integers, in; a long[] out; anything else an error.
 */
class IntegerArrayOutputTest {

    @Test
    void oneIntegerIsAnArrayOfIt() {
        IntegerArrayOutput one = new IntegerArrayOutput();
        one.set(7);

        assertThat(one.hasError()).isFalse();
        assertThat(one.get()).containsExactly(7);
    }

    @Test
    void aStringOfBigEndianLongsIsTheArray() {
        IntegerArrayOutput output = new IntegerArrayOutput();
        // struct.pack('>i8i8i8i8', 1, 99, 10000, 0) as Redis returns it, then -1.
        output.set(ByteBuffer.wrap(HexFormat.of().parseHex("0000000000000001" + "0000000000000063"
                + "0000000000002710" + "0000000000000000" + "ffffffffffffffff")));

        assertThat(output.hasError()).isFalse();
        assertThat(output.get()).containsExactly(1, 99, 10_000, 0, -1);
    }

    @Test
    void theStringIsReadBigEndianFromItsPositionWhateverTheBuffersOrder() {
        IntegerArrayOutput output = new IntegerArrayOutput();
        // Three bytes before the reply, in a buffer set to little-endian: read in place, as packed.
        ByteBuffer buffer = ByteBuffer.wrap(HexFormat.of().parseHex("abcdef" + "0000000000000001" + "0000000000002710"))
                .order(ByteOrder.LITTLE_ENDIAN);
        buffer.position(3);

        output.set(buffer);

        assertThat(output.hasError()).isFalse();
        assertThat(output.get()).containsExactly(1, 10_000);
        assertThat(buffer.position()).isEqualTo(3);
        assertThat(buffer.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void anEmptyStringIsNoLimitsReply() {
        IntegerArrayOutput output = new IntegerArrayOutput();
        output.set(ByteBuffer.allocate(0));

        assertThat(output.hasError()).isFalse();
        assertThat(output.get()).isEmpty();
    }

    @Test
    void aStringOfAnotherLengthIsAnError() {
        IntegerArrayOutput output = new IntegerArrayOutput();
        output.set(ByteBuffer.wrap(new byte[12]));

        assertThat(output.getError()).contains("a string or nil");
    }

    @Test
    void aStringOfTextANilOrAnArrayIsAnError() {
        IntegerArrayOutput string = new IntegerArrayOutput();
        string.set(ByteBuffer.wrap("state".getBytes(StandardCharsets.UTF_8)));
        IntegerArrayOutput nil = new IntegerArrayOutput();
        nil.set((ByteBuffer) null);
        IntegerArrayOutput array = new IntegerArrayOutput();
        array.multi(3);
        array.set(1);
        array.set(2);
        array.set(3);
        IntegerArrayOutput empty = new IntegerArrayOutput();
        empty.multi(0);

        assertThat(string.getError()).contains("a string or nil", "state");
        assertThat(nil.getError()).contains("nil");
        assertThat(array.getError()).contains("an array of 3");
        assertThat(empty.getError()).contains("an array of 0");
    }
}
