package io.sluice.http;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What {@link HttpRateLimiter} reads of a request, whatever the server: a servlet container,
 * Jetty's core API, or another.
 */
public interface HttpRequestView {

    /** The HTTP method. */
    String method();

    /** The request path as sent, without the query string. */
    String path();

    /** Every value of a header field, in the order received (several lines stay separate). */
    List<String> headers(String name);

    /** The first value of a query parameter, or {@code null} when absent. */
    @Nullable String queryParameter(String name);

    /** The IP address literal of the peer of the connection (the socket's remote address). */
    String peerAddress();
}
