package io.sluice.testkit.redis;

/** Redis answered a fixture's command with an error reply, such as {@code ERR unknown command}. */
public final class RedisReplyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    RedisReplyException(String error) {
        super(error);
    }
}
