package io.sluice.http;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A Jakarta Servlet filter (Servlet 6.0 and 6.1) that rate-limits every request it sees with an
 * {@link HttpRateLimiter}: an admitted request goes down the chain with the rate-limit header
 * fields already on its response; any other is answered here (429, 503 or 401 with a problem
 * body) and never reaches the application.
 *
 * <pre>{@code
 * HttpRateLimiter http = HttpRateLimiter.custom(policyLimiter).build();
 * servletContext.addFilter("sluice", new RateLimitFilter(http))
 *         .addMappingForUrlPatterns(null, false, "/api/*");
 * }</pre>
 *
 * <p>The decision waits for the store on the request's thread (the store's timeout bounds the
 * wait); the path matched against the policy's endpoints is the request URI without the
 * context path, as the application sees it.
 */
public final class RateLimitFilter implements Filter {

    private final HttpRateLimiter limiter;

    /** A filter applying {@code limiter}. */
    public RateLimitFilter(HttpRateLimiter limiter) {
        this.limiter = Objects.requireNonNull(limiter, "limiter");
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest) || !(response instanceof HttpServletResponse)) {
            chain.doFilter(request, response);
            return;
        }
        HttpServletRequest httpRequest = (HttpServletRequest) request;
        HttpServletResponse httpResponse = (HttpServletResponse) response;
        HttpVerdict verdict = limiter.decide(new ServletRequestView(httpRequest));
        for (HttpVerdict.Header header : verdict.headers()) {
            httpResponse.addHeader(header.name(), header.value());
        }
        if (verdict.forward()) {
            chain.doFilter(request, response);
            return;
        }
        httpResponse.setStatus(verdict.status());
        httpResponse.setContentType(HttpVerdict.PROBLEM_JSON);
        byte[] body = Objects.requireNonNull(verdict.body()).getBytes(StandardCharsets.UTF_8);
        httpResponse.setContentLength(body.length);
        httpResponse.getOutputStream().write(body);
    }

    /** A servlet request as the limiter reads it. */
    private static final class ServletRequestView implements HttpRequestView {

        private final HttpServletRequest request;

        ServletRequestView(HttpServletRequest request) {
            this.request = request;
        }

        @Override
        public String method() {
            return request.getMethod();
        }

        @Override
        public String path() {
            String uri = request.getRequestURI();
            String context = request.getContextPath();
            return !context.isEmpty() && uri.startsWith(context) ? uri.substring(context.length()) : uri;
        }

        @Override
        public List<String> headers(String name) {
            return Collections.list(request.getHeaders(name));
        }

        @Override
        public @Nullable String queryParameter(String name) {
            // Only the query string: reading getParameter would consume a form body the application needs.
            String query = request.getQueryString();
            return query == null ? null : QueryStrings.first(query, name);
        }

        @Override
        public String peerAddress() {
            return request.getRemoteAddr();
        }
    }
}
