package io.sluice.jmh;

/**
 * The one thing every benchmarked implementation does: decide one request. Sluice and each
 * peer sit behind this adapter so that a benchmark measures them with the same code, keys
 * and limits, selected by a {@code @Param}.
 */
public interface Limiter extends AutoCloseable {

    /** Decides a request of {@code cost} tokens for {@code key}; true when admitted (and charged). */
    boolean tryAcquire(String key, long cost);

    /**
     * The key under which the store keeps {@code key}'s state: {@code key} itself unless the
     * implementation derives another (a policy's client key). A benchmark that draws its keys by
     * the member that owns them asks about this one.
     */
    default String storeKey(String key) {
        return key;
    }

    /** Releases what the implementation holds (connections, caches); servers are not stopped here. */
    @Override
    void close();
}
