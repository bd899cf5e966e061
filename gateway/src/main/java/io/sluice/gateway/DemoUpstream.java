package io.sluice.gateway;

import io.sluice.http.Json;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A small API to put behind the gateway when trying it ({@code --upstream demo}): it answers
 * every request with a line of JSON naming the method and path. Listens on 127.0.0.1 only.
 */
final class DemoUpstream implements AutoCloseable {

    /** Its threads' name, which tells them from the gateway's own in a thread dump or a profile. */
    static final String THREADS = "demo-upstream";

    private final Server server;

    private DemoUpstream(Server server) {
        this.server = server;
    }

    /** Starts the demo API on a free port of 127.0.0.1. */
    static DemoUpstream start() {
        QueuedThreadPool threads = new QueuedThreadPool(8, 2);
        threads.setName(THREADS);
        Server server = new Server(threads);
        ServerConnector connector = new ServerConnector(server, 1, 1);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract.NonBlocking() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                StringBuilder body = new StringBuilder("{");
                Json.member(body, "demo", "sluice upstream");
                Json.member(body, "method", request.getMethod());
                Json.member(body, "path", request.getHttpURI().getPath());
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                response.write(true, BufferUtil.toBuffer(body.append("}\n").toString(), StandardCharsets.UTF_8), callback);
                return true;
            }
        });
        try {
            server.start();
        } catch (Exception e) {
            throw new IllegalStateException("the demo upstream could not start: " + e, e);
        }
        return new DemoUpstream(server);
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort());
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
