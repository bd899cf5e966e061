package io.sluice.gateway;

import io.sluice.http.HttpRequestView;
import io.sluice.http.QueryStrings;
import java.util.List;
import org.eclipse.jetty.server.Request;
import org.jspecify.annotations.Nullable;

/** A Jetty core request as {@link io.sluice.http.HttpRateLimiter} reads it. */
final class JettyRequestView implements HttpRequestView {

    private final Request request;

    JettyRequestView(Request request) {
        this.request = request;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    /** The path as sent, still encoded: the policy normalizes it as the upstream will. */
    @Override
    public String path() {
        String path = request.getHttpURI().getPath();
        return path == null || path.isEmpty() ? "/" : path;
    }

    @Override
    public List<String> headers(String name) {
        return request.getHeaders().getValuesList(name);
    }

    @Override
    public @Nullable String queryParameter(String name) {
        String query = request.getHttpURI().getQuery();
        return query == null ? null : QueryStrings.first(query, name);
    }

    @Override
    public String peerAddress() {
        return Request.getRemoteAddr(request);
    }
}
