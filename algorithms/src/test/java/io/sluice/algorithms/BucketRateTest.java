package io.sluice.algorithms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link BucketRate#of} answers from its kept rates exactly what deriving the rate gives. */
class BucketRateTest {

    @Test
    void keptRatesAreTheDerivedOnesAlsoWhenLimitsShareASlot() {
        // Many more limits than slots, asked in turn several times: every slot is shared and replaced.
        Random random = new Random(7);
        List<long[]> limits = new ArrayList<>();
        for (int i = 0; i < 40 * BucketRate.CACHED_RATES; i++) {
            long permits = 1 + random.nextInt(1_000);
            limits.add(new long[] {permits, permits + random.nextInt(3), 1_000L * (1 + random.nextInt(100_000))});
        }
        for (int round = 0; round < 3; round++) {
            for (long[] limit : limits) {
                BucketRate derived = BucketRate.derive("token-bucket", limit[0], limit[1], limit[2]);
                assertThat(BucketRate.of("token-bucket", limit[0], limit[1], limit[2])).isEqualTo(derived);
                assertThat(BucketRate.of("token-bucket", limit[0], limit[1], limit[2])).isEqualTo(derived);
            }
        }
    }

    @Test
    void aLimitThatCannotBeEnforcedIsRejectedEveryTime() {
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> BucketRate.of("gcra", 3, Long.MAX_VALUE / 2, 1_000_000_007L))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("gcra: cannot enforce");
        }
    }

    @Test
    void oneUnitPerMicrosecondAddsAUnitEachMicrosecond() {
        BucketRate rate = BucketRate.of("token-bucket", 100, 100, 1_000_000);
        assertThat(rate.tokensPerMicro()).isEqualTo(1);
        assertThat(rate.microsToAdd(10_000)).isEqualTo(10_000);
        BucketRate three = BucketRate.of("token-bucket", 3, 3, 1_000_000);
        assertThat(three.microsToAdd(7)).isEqualTo(3);
    }
}
