package io.sluice.gateway;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import org.jspecify.annotations.Nullable;

/**
 * A JFR event per request whose decision came from another thread (a store's reply), with
 * where its time went up to the forwarding: the parts of the limiter's added latency that
 * the request's threads hand to each other. Off unless a recording enables
 * {@value #NAME} (the gateway's benchmark does); while off, {@link #begin} answers
 * {@code null} and a request costs one check of a flag.
 */
@Name(DecisionTiming.NAME)
@Label("Gateway decision from the store")
@Category("Sluice")
@Description("A limited request whose decision another thread completed: from the handler's entry to the "
        + "forwarding (or the answer)")
@StackTrace(false)
final class DecisionTiming extends Event {

    static final String NAME = "io.sluice.gateway.DecisionTiming";

    /** Asked whether recordings want the event: the class's instrumentation answers for every instance. */
    private static final DecisionTiming PROBE = new DecisionTiming();

    @Label("Decide call")
    @Description("From the handler's entry until decideAsync returned: identity, policy, guard, the store "
            + "command handed to its client")
    @Timespan(Timespan.NANOSECONDS)
    long decideCall;

    @Label("Store")
    @Description("From then until the decision completed, on the thread that completed it: the command's write, "
            + "the store's round trip and the reply's read")
    @Timespan(Timespan.NANOSECONDS)
    long store;

    @Label("Hand-off")
    @Description("From the decision's completion until a thread went on with the request: 0 when the completing "
            + "thread did")
    @Timespan(Timespan.NANOSECONDS)
    long handOff;

    @Label("Respond")
    @Description("The verdict's fields and meters, and the forwarding to the upstream (until its send returned) "
            + "or the answer")
    @Timespan(Timespan.NANOSECONDS)
    long respond;

    @Label("Handed off")
    @Description("Whether the request went back to the server's threads")
    boolean handedOff;

    private long enteredAt;
    private long calledAt;
    private long decidedAt;
    private long resumedAt;

    /** An event for a request that entered at {@code enteredAt} (System.nanoTime), or {@code null} when none is recorded. */
    static @Nullable DecisionTiming begin(long enteredAt) {
        if (!PROBE.isEnabled()) {
            return null;
        }
        DecisionTiming timing = new DecisionTiming();
        timing.enteredAt = enteredAt;
        timing.calledAt = System.nanoTime();
        return timing;
    }

    /** The decision completed (on the thread calling this). */
    void decided() {
        decidedAt = System.nanoTime();
    }

    /** A thread goes on with the request; {@code handedOff} when it is another than the one that completed the decision. */
    void resumed(boolean handedOff) {
        this.handedOff = handedOff;
        resumedAt = System.nanoTime();
    }

    /** The request was forwarded or answered: the event is committed. */
    void responded() {
        long now = System.nanoTime();
        decideCall = calledAt - enteredAt;
        store = decidedAt - calledAt;
        handOff = resumedAt - decidedAt;
        respond = now - resumedAt;
        commit();
    }
}
