package io.sluice.jmh;

/**
 * The one thing every benchmarked implementation does: decide one request. Sluice and each
 * peer sit behind this adapter so that a benchmark measures them with the same code, keys
 * and limits, selected by a {@code @Param}.
 */
public interface Limiter extends AutoCloseable {

    /** Decides a request of {@code cost} tokens for {@code key}; true when admitted (and charged). */
    boolean tryAcquire(String key, long cost);

    /** Releases what the implementation holds (connections, caches); servers are not stopped here. */
    @Override
    void close();
}
