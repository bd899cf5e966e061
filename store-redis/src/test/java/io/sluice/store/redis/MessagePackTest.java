package io.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The MessagePack the store writes, against the bytes of the specification's formats. */
class MessagePackTest {

    private static String hex(long... values) {
        return HexFormat.of().formatHex(MessagePack.array(values));
    }

    @Test
    void eachIntegerTakesItsShortestForm() {
        assertThat(hex()).isEqualTo("90");
        assertThat(hex(0, 127)).isEqualTo("92007f");
        assertThat(hex(128, 255)).isEqualTo("92cc80ccff");
        assertThat(hex(256, 65_535)).isEqualTo("92cd0100cdffff");
        assertThat(hex(65_536, 4_294_967_295L)).isEqualTo("92ce00010000ceffffffff");
        assertThat(hex(4_294_967_296L, 86_400_000_000L)).isEqualTo("92cf0000000100000000cf000000141dd76000");
        assertThat(hex((1L << 53) - 1)).isEqualTo("91cf001fffffffffffff");
    }

    @Test
    void negativeIntegersToo() {
        assertThat(hex(-1, -32)).isEqualTo("92ffe0");
        assertThat(hex(-33, -128)).isEqualTo("92d0dfd080");
        assertThat(hex(-129, -32_768)).isEqualTo("92d1ff7fd18000");
        assertThat(hex(-32_769, Integer.MIN_VALUE)).isEqualTo("92d2ffff7fffd280000000");
        assertThat(hex(Long.MIN_VALUE)).isEqualTo("91d38000000000000000");
    }

    @Test
    void theArrayHeaderGrowsWithItsSize() {
        assertThat(hex(new long[15])).startsWith("9f00");
        assertThat(hex(new long[16])).isEqualTo("dc0010" + "00".repeat(16));
        assertThat(MessagePack.array(new long[65_536])).startsWith(0xdd, 0x00, 0x01, 0x00, 0x00, 0x00);
    }
}
