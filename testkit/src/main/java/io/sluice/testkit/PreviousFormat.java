package io.sluice.testkit;

import java.util.List;
import java.util.Objects;

/**
 * A store's previous stored-state format, for the kit's upgrade check: during a rolling upgrade
 * gateways of two versions share one store, so the new version meets state the old one wrote.
 * A store's conformance test returns one from {@link StoreConformance#previousFormat}: a
 * {@link Writer} that puts a key's state into the store's back end as the previous version
 * would have, and what the current version must do with it: {@linkplain #read read} it
 * exactly, or {@linkplain #rejected reject} it with an error that names the format version.
 * Never acceptable: reading it as no state (that admits a client's limit again) or misreading it.
 */
public final class PreviousFormat {

    /** What the current version of the store does with state of the previous format. */
    public enum Outcome {
        /** Decides on it exactly as on state it wrote itself. */
        READ,
        /** Fails the decision, with a message that names the format version. */
        REJECTED
    }

    /** Writes one key's state in the previous format, directly into the store's back end. */
    @FunctionalInterface
    public interface Writer {

        /**
         * Writes {@code key}'s state: the state of each of {@code states}' limits, as the previous
         * version of the store would hold it at {@code nowMicros} on the store's clock (the
         * virtual clock the store was created with).
         */
        void write(String key, List<HeldState> states, long nowMicros) throws Exception;
    }

    private final int version;
    private final Outcome outcome;
    private final Writer writer;

    private PreviousFormat(int version, Outcome outcome, Writer writer) {
        this.version = version;
        this.outcome = Objects.requireNonNull(outcome, "outcome");
        this.writer = Objects.requireNonNull(writer, "writer");
    }

    /** Format {@code version}, which the current store reads exactly; {@code writer} writes it. */
    public static PreviousFormat read(int version, Writer writer) {
        return new PreviousFormat(version, Outcome.READ, writer);
    }

    /**
     * Format {@code version}, which the current store rejects with an error naming the version;
     * {@code writer} writes it.
     */
    public static PreviousFormat rejected(int version, Writer writer) {
        return new PreviousFormat(version, Outcome.REJECTED, writer);
    }

    /** The previous format's version number, as the store names it. */
    public int version() {
        return version;
    }

    /** What the current store does with it. */
    public Outcome outcome() {
        return outcome;
    }

    /** How it is written. */
    public Writer writer() {
        return writer;
    }

    @Override
    public String toString() {
        return "format version " + version + " (" + outcome.name().toLowerCase() + " by the current store)";
    }
}
