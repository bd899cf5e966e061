package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import io.sluice.api.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The clock of the member that runs an entry processor: the authoritative clock of the keys
 * it owns. It is the system clock, unless the member's user context holds a
 * {@link TimeSource} under {@link #USER_CONTEXT_KEY}: a test-only hook that gives members
 * of one JVM clocks of their own, so tests can skew them (Hazelcast's own clock offset is
 * one per JVM). Never set it in production.
 */
final class MemberClock {

    static final String USER_CONTEXT_KEY = "io.sluice.store.hazelcast.memberClock";

    private static final TimeSource SYSTEM = TimeSource.system();

    private MemberClock() {
    }

    /** Now on {@code member}'s clock, in microseconds since the epoch. */
    static long nowMicros(@Nullable HazelcastInstance member) {
        Object override = member != null ? member.getUserContext().get(USER_CONTEXT_KEY) : null;
        return override instanceof TimeSource ? ((TimeSource) override).nowMicros() : SYSTEM.nowMicros();
    }
}
