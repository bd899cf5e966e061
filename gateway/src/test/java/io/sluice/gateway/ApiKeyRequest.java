package io.sluice.gateway;

import io.sluice.http.HttpRequestView;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A GET of /v1/things with an API key in {@code X-Api-Key} from {@code peer}, as the gateway
 * benchmark sends; reads allocate nothing, so a probe of the limiter's bytes counts only the
 * limiter's.
 */
record ApiKeyRequest(String key, String peer) implements HttpRequestView {

    @Override
    public String method() {
        return "GET";
    }

    @Override
    public String path() {
        return "/v1/things";
    }

    @Override
    public List<String> headers(String name) {
        return name.equalsIgnoreCase("X-Api-Key") ? List.of(key) : List.of();
    }

    @Override
    public @Nullable String queryParameter(String name) {
        return null;
    }

    @Override
    public String peerAddress() {
        return peer;
    }
}
