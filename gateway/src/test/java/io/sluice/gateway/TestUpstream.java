package io.sluice.gateway;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;

/**
 * A real API server for the gateway to forward to: counts what reaches it, and holds requests to
 * {@code /hold} until the test releases them (requests in flight, without timing).
 */
final class TestUpstream implements AutoCloseable {

    private final Server server = new Server();
    private final AtomicInteger served = new AtomicInteger();
    private final Semaphore arrivedAtHold = new Semaphore(0);
    private final CountDownLatch release = new CountDownLatch(1);

    /**
     * Starts the server on a free loopback port.
     *
     * @throws IllegalStateException when Jetty cannot start it
     */
    TestUpstream() {
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                if (request.getHttpURI().getPath().equals("/hold")) {
                    arrivedAtHold.release();
                    if (!release.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the test never released /hold");
                    }
                }
                served.incrementAndGet();
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
                response.write(true, BufferUtil.toBuffer("upstream " + request.getHttpURI().getPath(),
                        StandardCharsets.UTF_8), callback);
                return true;
            }
        });
        try {
            server.start();
        } catch (Exception e) {
            throw new IllegalStateException("the test upstream did not start", e);
        }
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort());
    }

    /** Requests that reached the upstream and were answered. */
    int served() {
        return served.get();
    }

    /** Waits until {@code count} requests are being held at {@code /hold}. */
    void awaitHeld(int count) throws InterruptedException {
        if (!arrivedAtHold.tryAcquire(count, 30, TimeUnit.SECONDS)) {
            throw new AssertionError("only " + arrivedAtHold.availablePermits() + " of " + count + " requests arrived");
        }
    }

    /** Lets every held request (and every later one) complete. */
    void releaseHeld() {
        release.countDown();
    }

    @Override
    public void close() throws Exception {
        releaseHeld();
        server.stop();
    }
}
