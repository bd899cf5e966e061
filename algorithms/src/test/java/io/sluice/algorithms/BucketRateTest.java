package io.sluice.algorithms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.Limit;
import java.time.Duration;
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
        List<Limit> limits = new ArrayList<>();
        for (int i = 0; i < 40 * BucketRate.CACHED_RATES; i++) {
            long permits = 1 + random.nextInt(1_000);
            limits.add(Limit.of(Algorithms.TOKEN_BUCKET, permits, Duration.ofMillis(1 + random.nextInt(100_000)))
                    .withBurst(permits + random.nextInt(3)));
        }
        for (int round = 0; round < 3; round++) {
            for (Limit limit : limits) {
                BucketRate derived = BucketRate.derive("token-bucket", limit.permits(), limit.burst(),
                        limit.periodMicros());
                assertThat(BucketRate.of("token-bucket", limit)).isEqualTo(derived);
                assertThat(BucketRate.of("token-bucket", limit)).isEqualTo(derived);
            }
        }
    }

    /** Whole tokens, rounded down, also below one token and at its edges (where the division is skipped). */
    @Test
    void tokensAreTheWholeTokensInUnits() {
        BucketRate rate = BucketRate.derive("token-bucket", 100, 100, 1_000_000);
        assertThat(rate.scale()).isEqualTo(10_000);
        assertThat(rate.tokens(0)).isZero();
        assertThat(rate.tokens(9_999)).isZero();
        assertThat(rate.tokens(10_000)).isEqualTo(1);
        assertThat(rate.tokens(19_999)).isEqualTo(1);
        assertThat(rate.tokens(rate.units(100))).isEqualTo(100);
        BucketRate wholeTokens = BucketRate.derive("gcra", 5, 5, 5);
        assertThat(wholeTokens.scale()).isEqualTo(1);
        assertThat(wholeTokens.tokens(0)).isZero();
        assertThat(wholeTokens.tokens(1)).isEqualTo(1);
        assertThat(wholeTokens.tokens(5)).isEqualTo(5);
    }

    @Test
    void anEqualLimitOfAnotherObjectGetsTheKeptLimitsRate() {
        Limit kept = Limit.of(Algorithms.GCRA, 7, Duration.ofSeconds(3)).withBurst(9);
        Limit equal = Limit.of(Algorithms.GCRA, 7, Duration.ofSeconds(3)).withBurst(9);
        BucketRate derived = BucketRate.derive("gcra", 7, 9, 3_000_000);
        assertThat(BucketRate.of("gcra", kept)).isEqualTo(derived);
        assertThat(BucketRate.of("gcra", equal)).isEqualTo(derived);
        assertThat(BucketRate.of("gcra", kept)).isEqualTo(derived);
    }

    @Test
    void aLimitThatCannotBeEnforcedIsRejectedEveryTime() {
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> BucketRate.derive("gcra", 3, Long.MAX_VALUE / 2, 1_000_000_007L))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("gcra: cannot enforce");
        }
    }

    @Test
    void oneUnitPerMicrosecondAddsAUnitEachMicrosecond() {
        BucketRate rate = BucketRate.of("token-bucket", Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1)));
        assertThat(rate.tokensPerMicro()).isEqualTo(1);
        assertThat(rate.microsToAdd(10_000)).isEqualTo(10_000);
        BucketRate three = BucketRate.of("token-bucket", Limit.of(Algorithms.TOKEN_BUCKET, 3, Duration.ofSeconds(1)));
        assertThat(three.microsToAdd(7)).isEqualTo(3);
    }
}
