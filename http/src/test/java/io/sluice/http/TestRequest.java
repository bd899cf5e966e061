package io.sluice.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** A request as a server adapter would present it, for unit tests of what the limiter reads. */
final class TestRequest implements HttpRequestView {

    private final String method;
    private final String path;
    private final String peer;
    private final Map<String, List<String>> headers = new LinkedHashMap<>();
    private final Map<String, String> query = new LinkedHashMap<>();

    private TestRequest(String method, String path, String peer) {
        this.method = method;
        this.path = path;
        this.peer = peer;
    }

    static TestRequest get(String path, String peer) {
        return new TestRequest("GET", path, peer);
    }

    TestRequest header(String name, String value) {
        headers.computeIfAbsent(name.toLowerCase(), n -> new ArrayList<>()).add(value);
        return this;
    }

    TestRequest query(String name, String value) {
        query.put(name, value);
        return this;
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public List<String> headers(String name) {
        return headers.getOrDefault(name.toLowerCase(), List.of());
    }

    @Override
    public @Nullable String queryParameter(String name) {
        return query.get(name);
    }

    @Override
    public String peerAddress() {
        return peer;
    }
}
