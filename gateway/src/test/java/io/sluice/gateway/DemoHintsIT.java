package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's run command: the example config on the local store with the demo upstream, and
 * the curl lines it prints, sent as printed (an admitted call, the same key until a 429, a 401
 * for an unknown key). On a virtual clock, so that the token bucket does not refill between the
 * calls however slowly they run.
 */
class DemoHintsIT {

    private static final Path EXAMPLE = Path.of("examples/sluice.yaml");
    private static final Pattern ADMITTED = Pattern.compile("curl -i -H '([^:]+): ([^']+)' (\\S+)");
    private static final Pattern LOOP = Pattern.compile("\\$\\(seq (\\d+)\\).* -H '[^:]+: ([^']+)' (\\S+); done");
    private static final Pattern UNKNOWN = Pattern.compile("curl -i -H '[^:]+: (no-such-key)' (\\S+)");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void thePrintedCurlLinesGetA200ThenA429ThenA401() throws Exception {
        VirtualClock clock = new VirtualClock(1_000_000_000_000L);
        try (DemoUpstream demo = DemoUpstream.start();
             Gateway gateway = Gateway.start(
                     new Gateway.Settings(EXAMPLE, demo.uri(), "127.0.0.1", 0, "127.0.0.1", 0, Duration.ofSeconds(10),
                             true),
                     GatewayConfig.load(EXAMPLE),
                     () -> ConfiguredStore.of(LocalStore.builder().clockForTesting(clock).build(), "local, virtual clock"),
                     clock)) {
            StringWriter printed = new StringWriter();
            DemoHints.print(new PrintWriter(printed, true), EXAMPLE, gateway.port(), gateway.adminPort());
            String hints = printed.toString();

            Matcher admitted = find(ADMITTED, hints);
            HttpResponse<String> first = get(admitted.group(3), admitted.group(1), admitted.group(2));
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.headers().firstValue("RateLimit-Policy")).isPresent();
            assertThat(first.headers().firstValue("RateLimit")).isPresent();

            Matcher loop = find(LOOP, hints);
            assertThat(loop.group(2)).isEqualTo(admitted.group(2));
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < Integer.parseInt(loop.group(1)); i++) {
                statuses.add(get(loop.group(3), admitted.group(1), loop.group(2)).statusCode());
            }
            assertThat(statuses).as(hints).startsWith(200).endsWith(429, 429).containsOnly(200, 429);

            Matcher unknown = find(UNKNOWN, hints);
            assertThat(get(unknown.group(2), admitted.group(1), unknown.group(1)).statusCode()).isEqualTo(401);
        }
    }

    private static Matcher find(Pattern pattern, String hints) {
        Matcher matcher = pattern.matcher(hints);
        assertThat(matcher.find()).as("%s in%n%s", pattern, hints).isTrue();
        return matcher;
    }

    private HttpResponse<String> get(String url, String header, String value) throws Exception {
        // The hints name localhost, as a user types it; the gateway listens on 127.0.0.1 here.
        URI uri = URI.create(url.replace("//localhost:", "//127.0.0.1:"));
        return http.send(HttpRequest.newBuilder(uri).header(header, value).build(), HttpResponse.BodyHandlers.ofString());
    }
}
