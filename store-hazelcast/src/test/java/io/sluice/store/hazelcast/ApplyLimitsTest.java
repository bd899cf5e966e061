package io.sluice.store.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import io.sluice.algorithms.Algorithms;
import com.hazelcast.map.impl.LazyMapEntry;
import io.sluice.algorithms.KeyState;
import io.sluice.algorithms.LogChunks;
import io.sluice.algorithms.grid.GridOperation;
import io.sluice.algorithms.grid.GridReply;
import io.sluice.algorithms.grid.GridRequest;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.List;
import java.util.Random;
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
            byte[] read = (byte[]) owner.value;
            byte[] asRead = read == null ? null : read.clone();
            EntryProcessor<String, Object, long[]> sent = decide(owner, LOG, START_MICROS + 1_000L * i);
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

        EntryProcessor<String, Object, long[]> sent = decide(owner, BUCKET, START_MICROS);
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

    /**
     * In a map that keeps its values as objects ({@code OBJECT} format: the processor gets the
     * stored value itself, as a {@link LazyMapEntry} of it here), a sliding log longer than its
     * replay is kept in place: every decision, on a virtual clock, is {@link KeyState}'s own one
     * by one (admissions, denials, entries expiring), the owner's value stays one object, and
     * the backup, replaying every admission, holds the same state.
     */
    @Test
    void aLongSlidingLogInAnObjectMapIsChangedInPlaceAndDecidesAsKeyStateDoes() {
        KeyState reference = KeyState.empty();
        Random random = new Random(10);
        Object owner = null;
        Object backup = null;
        Object held = null;
        long nowMicros = START_MICROS;
        for (int i = 0; i < 3_000; i++) {
            nowMicros += random.nextInt(10_000);
            long cost = 1 + random.nextInt(3);
            LazyMapEntry<String, Object> ownerEntry = new LazyMapEntry<>("key", owner, wire);
            ApplyLimits processor = wire.toObject(wire.toData(new ApplyLimits(GridOperation.decide(LOG, cost, nowMicros))));

            long[] reply = processor.process(ownerEntry);

            assertThat(GridReply.decode(reply, LOG)).as("decision %d", i).isEqualTo(reference.tryAcquire(LOG, nowMicros, cost));
            owner = ownerEntry.getValue();
            EntryProcessor<String, Object, long[]> sent = processor.getBackupProcessor();
            if (sent != null) {
                LazyMapEntry<String, Object> backupEntry = new LazyMapEntry<>("key", backup, wire);
                sent(sent).process(backupEntry);
                backup = backupEntry.getValue();
            }
            assertThat(bytesOf(owner)).as("the owner's state after %d", i).isEqualTo(reference.encode());
            assertThat(bytesOf(backup)).as("the backup's state after %d", i).isEqualTo(reference.encode());
            if (held != null) {
                assertThat(owner).isSameAs(held);
            } else if (owner instanceof InPlaceState) {
                held = owner;
            }
        }
        assertThat(held).isNotNull();
        assertThat(backup).isInstanceOf(InPlaceState.class);
    }

    /** A {@code BINARY} map hands the processor a copy of the value's bytes: it stores bytes, never an object. */
    @Test
    void aLongSlidingLogInABinaryMapStaysBytes() {
        Object owner = null;
        for (int i = 0; i < 300; i++) {
            LazyMapEntry<String, Object> entry = new LazyMapEntry<>("key", owner == null ? null : wire.toData(owner), wire);
            new ApplyLimits(GridOperation.decide(LOG, 1, START_MICROS + 1_000L * i)).process(entry);
            owner = entry.getValue();
            assertThat(owner).isInstanceOf(byte[].class);
        }
    }

    /**
     * A state kept as heads and chunks (written by a member with states in place off) stays
     * bytes in an {@code OBJECT} map: in place, its log could not read its chunks; the same
     * log kept whole is taken in place.
     */
    @Test
    void aStateHoldingAHeadIsNeverTakenInPlace() {
        List<Limit> log = List.of(Limit.of(Algorithms.SLIDING_LOG, 1_000, Duration.ofHours(1)).named("long"));
        LogChunks noneWritten = new LogChunks() {
            @Override
            public long @Nullable [] chunk(String limitName, long birth, long index) {
                return null;
            }

            @Override
            public void need(String limitName, long birth, long index) {
                throw new AssertionError("a chunk needed though none was written");
            }

            @Override
            public void flush(String limitName, long birth, long index, long[] entries) {
                // Never acknowledged: the head keeps the entries.
            }
        };
        KeyState chunked = KeyState.empty();
        KeyState whole = KeyState.empty();
        for (int i = 0; i < 300; i++) {
            assertThat(chunked.tryAcquire(log, START_MICROS + i, 1, noneWritten)).isNotNull();
            whole.tryAcquire(log, START_MICROS + i, 1);
        }
        byte[] head = chunked.encode();
        assertThat(KeyState.holdsHeads(head)).isTrue();
        assertThat(KeyState.holdsHeads(whole.encode())).isFalse();

        assertThat(InPlaceState.of(new LazyMapEntry<>("key", head, wire), false, 100, null)).isNull();
        assertThat(InPlaceState.of(new LazyMapEntry<>("key", whole.encode(), wire), false, 100, null)).isNotNull();
    }

    @Test
    void aMembersConfigurationTurnsStatesInPlaceOffDuringARollingUpgrade() {
        assertThat(InPlaceState.keptBy(new Config())).isTrue();
        assertThat(InPlaceState.keptBy(new Config().setProperty(HazelcastStore.STATE_IN_PLACE_PROPERTY, "false")))
                .isFalse();
        assertThat(InPlaceState.keptBy(new Config().setProperty(HazelcastStore.REPLAY_BACKUPS_PROPERTY, "false")))
                .isFalse();
    }

    /** The encoding of a key's state as a map holds it: its bytes, or an in-place state's encoding. */
    static byte @Nullable [] bytesOf(@Nullable Object value) {
        return value instanceof InPlaceState held ? held.state().encode() : (byte[]) value;
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
    private @Nullable EntryProcessor<String, Object, long[]> decide(Entry owner, List<Limit> limits, long nowMicros) {
        ApplyLimits processor = wire.toObject(wire.toData(new ApplyLimits(GridOperation.decide(limits, 1, nowMicros))));
        processor.process(owner);
        EntryProcessor<String, Object, long[]> backup = processor.getBackupProcessor();
        return backup == null ? null : sent(backup);
    }

    /** {@code processor} as a member reads it. */
    private EntryProcessor<String, Object, long[]> sent(EntryProcessor<String, Object, long[]> processor) {
        return wire.toObject(wire.toData(processor));
    }

    /** A map entry as a member's processor sees it; under a caller's clock nothing gets a time to live. */
    private static final class Entry implements ExtendedMapEntry<String, Object> {

        private @Nullable Object value;

        Entry(@Nullable Object value) {
            this.value = value;
        }

        @Override
        public String getKey() {
            return "key";
        }

        @Override
        public @Nullable Object getValue() {
            return value;
        }

        @Override
        public @Nullable Object setValue(@Nullable Object newValue) {
            Object old = value;
            value = newValue;
            return old;
        }

        @Override
        public Object setValue(Object newValue, long ttl, TimeUnit unit) {
            throw new AssertionError("a time to live under a caller's clock: " + ttl + " " + unit);
        }

        @Override
        public Object setValueWithoutChangingExpiryTime(Object newValue) {
            throw new AssertionError("not used by the store");
        }
    }
}
