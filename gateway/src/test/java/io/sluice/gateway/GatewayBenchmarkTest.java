package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GatewayBenchmarkTest {

    @Test
    void theBenchmarksThreadsFallIntoTheirGroups() {
        assertThat(GatewayBenchmark.threadGroup("load-3")).isEqualTo("load generator");
        assertThat(GatewayBenchmark.threadGroup("HttpClient-2-Se")).isEqualTo("load generator");
        assertThat(GatewayBenchmark.threadGroup("qtp1933863327-4")).isEqualTo("Jetty (proxies, their clients)");
        assertThat(GatewayBenchmark.threadGroup("proxy-client-12")).isEqualTo("Jetty (proxies, their clients)");
        assertThat(GatewayBenchmark.threadGroup("demo-upstream-1")).isEqualTo("upstream");
        assertThat(GatewayBenchmark.threadGroup("lettuce-nioEven")).isEqualTo("Lettuce");
        assertThat(GatewayBenchmark.threadGroup("C2 CompilerThre")).isEqualTo("JIT compilers");
        assertThat(GatewayBenchmark.threadGroup("ForkJoinPool.co")).isEqualTo("common pool");
    }
}
