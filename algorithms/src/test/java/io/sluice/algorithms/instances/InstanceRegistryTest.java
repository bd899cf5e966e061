package io.sluice.algorithms.instances;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The grid stores' registry of live instances, as the owner of its entry changes it. */
class InstanceRegistryTest {

    private static final long TTL = 15_000_000;

    @Test
    void countsEachLiveInstanceOnceAndDropsThoseThatExpired() {
        InstanceRegistry.Beaten first = InstanceRegistry.beat(null, "a", 0, TTL, false);
        assertThat(first.instances()).isEqualTo(1);
        InstanceRegistry.Beaten second = InstanceRegistry.beat(first.registry(), "b", 5_000_000, TTL, false);
        assertThat(second.instances()).isEqualTo(2);
        InstanceRegistry.Beaten again = InstanceRegistry.beat(second.registry(), "b", 10_000_000, TTL, false);
        assertThat(again.instances()).as("a beat of a registered instance").isEqualTo(2);
        // "a" registered until 15 s; at 15 s it has expired.
        InstanceRegistry.Beaten later = InstanceRegistry.beat(again.registry(), "b", TTL, TTL, false);
        assertThat(later.instances()).isEqualTo(1);
    }

    @Test
    void anInstanceThatLeavesIsNoLongerCountedAndTheLastLeavesNothing() {
        InstanceRegistry.Beaten two = InstanceRegistry.beat(InstanceRegistry.beat(null, "a", 0, TTL, false).registry(),
                "b", 0, TTL, false);
        InstanceRegistry.Beaten one = InstanceRegistry.beat(two.registry(), "a", 1, TTL, true);
        assertThat(one.instances()).isEqualTo(1);
        InstanceRegistry.Beaten none = InstanceRegistry.beat(one.registry(), "b", 2, TTL, true);
        assertThat(none.instances()).isZero();
        assertThat(none.registry()).isNull();
    }

    @Test
    void aRegistryOfAnUnknownFormatOrTruncatedIsStartedAnew() {
        assertThat(InstanceRegistry.beat(new byte[] {9, 0, 0, 0, 5}, "a", 0, TTL, false).instances()).isEqualTo(1);
        byte[] two = InstanceRegistry.beat(InstanceRegistry.beat(null, "a", 0, TTL, false).registry(),
                "b", 0, TTL, false).registry();
        byte[] truncated = java.util.Arrays.copyOf(two, two.length - 3);
        assertThat(InstanceRegistry.beat(truncated, "c", 0, TTL, false).instances()).isEqualTo(1);
    }
}
