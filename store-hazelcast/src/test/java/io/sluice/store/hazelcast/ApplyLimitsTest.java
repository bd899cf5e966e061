package io.sluice.store.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.grid.GridOperation;
import io.sluice.algorithms.grid.GridRequest;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * What an owner's {@link ApplyLimits} hands its backups, sent through Hazelcast's serialization
 * as a backup operation carries it, and that each backup then holds the owner's bytes. Requests
 * at a caller's time (the members' clocks are {@code HazelcastClusterIT}'s).
 */
class ApplyLimitsTest {

    private static final long START_MICROS = 1_700_000_000_000_000L;
    private static final List<Limit> LOG = List.of(Limit.of(Algorithms.SLIDING_LOG, 200, Duration.ofSeconds(1))
            .named("log"));
    private static final List<Limit> BUCKET = List.of(Limit.of(Algorithms.TOKEN_BUCKET, 200, Duration.ofSeconds(1))
            .named("bucket"));

    private final InternalSerializationService wire = new DefaultSerializationServiceBuilder()
            .addDataSerializableFactory(ProcessorFactory.FACTORY_ID, new ProcessorFactory()).build();

    @Test
    void aSlidingLogsBackupsReplayItsAdmissionsAndHoldTheOwnersBytes() {
        Entry owner = new Entry(null);
        Entry backup = new Entry(null);
        for (int i = 0; i < 300; i++) {
            byte[] read = owner.value;
            byte[] asRead = read == null ? null : read.clone();
            EntryProcessor<String, byte[], long[]> sent = decide(owner, LOG, START_MICROS + 1_000L * i);
            // A map in OBJECT format hands the processor the stored array itself: never changed.
            assertThat(read).isEqualTo(asRead);
            if (i == 0) {
                // A log of one entry is smaller than the request: its bytes are sent.
                assertThat(sent).isInstanceOf(WriteState.class);
            } else if (i >= 10 && i < 200) {
                assertThat(sent).isInstanceOf(ReplayOnBackup.class);
            } else if (i >= 200) {
                // The full log denies: nothing written, nothing sent.
                assertThat(sent).isNull();
            }
            if (sent != null) {
                sent.process(backup);
            }
            assertThat(backup.value).isEqualTo(owner.value);
        }
    }

    @Test
    void aTokenBucketsBackupsGetTheOwnersBytesSmallerThanItsRequest() {
        Entry owner = new Entry(null);
        Entry backup = new Entry(null);

        EntryProcessor<String, byte[], long[]> sent = decide(owner, BUCKET, START_MICROS);
        sent.process(backup);

        assertThat(sent).isInstanceOf(WriteState.class);
        assertThat(backup.value).isEqualTo(owner.value);
    }

    @Test
    void aBackupDecidesOnNoStateWhenTheOwnerFoundNoneWhateverItsCopyHolds() {
        // Hazelcast expired the owner's entry (by its own clock, in whole seconds) and has not
        // removed the backup's copy yet, whose state the owner's clock may not see as expired.
        long nowMicros = START_MICROS + 10_000_000;
        Entry expired = new Entry(null);
        decide(expired, BUCKET, nowMicros);
        Entry owner = new Entry(null);
        Entry backup = new Entry(expired.value);
        GridOperation operation = GridOperation.decide(LOG, 1, nowMicros);

        new ApplyLimits(operation).process(owner);
        sent(new ReplayOnBackup(operation, GridRequest.MEMBER_CLOCK, true)).process(backup);

        assertThat(backup.value).isEqualTo(owner.value);
    }

    @Test
    void aMembersConfigurationTurnsTheReplayOffDuringARollingUpgrade() {
        assertThat(ApplyLimits.replaysBackups(new Config())).isTrue();
        assertThat(ApplyLimits.replaysBackups(new Config().setProperty(HazelcastStore.REPLAY_BACKUPS_PROPERTY, "true")))
                .isTrue();
        assertThat(ApplyLimits.replaysBackups(new Config().setProperty(HazelcastStore.REPLAY_BACKUPS_PROPERTY, "false")))
                .isFalse();
    }

    /** One decision of cost 1 on the owner's entry; returns the backup processor after Hazelcast's serialization. */
    private @Nullable EntryProcessor<String, byte[], long[]> decide(Entry owner, List<Limit> limits, long nowMicros) {
        ApplyLimits processor = wire.toObject(wire.toData(new ApplyLimits(GridOperation.decide(limits, 1, nowMicros))));
        processor.process(owner);
        EntryProcessor<String, byte[], long[]> backup = processor.getBackupProcessor();
        return backup == null ? null : sent(backup);
    }

    /** {@code processor} as a member reads it. */
    private EntryProcessor<String, byte[], long[]> sent(EntryProcessor<String, byte[], long[]> processor) {
        return wire.toObject(wire.toData(processor));
    }

    /** A map entry as a member's processor sees it; under a caller's clock nothing gets a time to live. */
    private static final class Entry implements ExtendedMapEntry<String, byte[]> {

        private byte @Nullable [] value;

        Entry(byte @Nullable [] value) {
            this.value = value;
        }

        @Override
        public String getKey() {
            return "key";
        }

        @Override
        public byte @Nullable [] getValue() {
            return value;
        }

        @Override
        public byte @Nullable [] setValue(byte @Nullable [] newValue) {
            byte[] old = value;
            value = newValue;
            return old;
        }

        @Override
        public byte[] setValue(byte[] newValue, long ttl, TimeUnit unit) {
            throw new AssertionError("a time to live under a caller's clock: " + ttl + " " + unit);
        }

        @Override
        public byte[] setValueWithoutChangingExpiryTime(byte[] newValue) {
            throw new AssertionError("not used by the store");
        }
    }
}
