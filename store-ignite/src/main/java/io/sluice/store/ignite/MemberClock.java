package io.sluice.store.ignite;

import io.sluice.api.TimeSource;
import java.util.Objects;
import org.apache.ignite.Ignite;
import org.jspecify.annotations.Nullable;

/**
 * The clock of the node an entry processor runs on: the system clock, unless a test gave the
 * node another one (several nodes in one JVM share a system clock, so a test skews them here).
 */
final class MemberClock {

    private static final String NODE_LOCAL_KEY = MemberClock.class.getName();
    private static final TimeSource SYSTEM = TimeSource.system();

    private MemberClock() {
    }

    /** The clock of {@code member}. */
    static TimeSource of(@Nullable Ignite member) {
        if (member == null) {
            return SYSTEM;
        }
        Object override = member.cluster().nodeLocalMap().get(NODE_LOCAL_KEY);
        return override instanceof TimeSource ? (TimeSource) override : SYSTEM;
    }

    /**
     * Whether {@code clock} is the system clock, the one Ignite expires entries by; a test's
     * clock follows its own time, to which a time to live in real time would not correspond.
     */
    static boolean isSystem(TimeSource clock) {
        return clock == SYSTEM;
    }

    /** Test-only: makes {@code clock} the clock of {@code member} for the store's processors. */
    static void installForTesting(Ignite member, TimeSource clock) {
        member.cluster().nodeLocalMap().put(NODE_LOCAL_KEY, Objects.requireNonNull(clock, "clock"));
    }
}
