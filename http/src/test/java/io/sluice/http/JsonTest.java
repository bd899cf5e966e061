package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void stringsAreQuotedWithOnlyWhatRfc8259RequiresEscaped() {
        assertThat(json("")).isEqualTo("\"\"");
        assertThat(json("limit 'tier.free.per-second' is used up \u00e9"))
                .isEqualTo("\"limit 'tier.free.per-second' is used up \u00e9\"");
        assertThat(json("\"a\\b\"")).isEqualTo("\"\\\"a\\\\b\\\"\"");
        assertThat(json("x\ny\r\tz\u0001")).isEqualTo("\"x\\ny\\r\\tz\\u0001\"");
    }

    @Test
    void membersAreCommaSeparatedAfterTheFirst() {
        StringBuilder out = new StringBuilder("{");
        Json.member(out, "type", "t");
        Json.member(out, "de\"tail", "d");

        assertThat(out.append('}')).hasToString("{\"type\":\"t\",\"de\\\"tail\":\"d\"}");
    }

    private static String json(String value) {
        StringBuilder out = new StringBuilder();
        Json.string(out, value);
        return out.toString();
    }
}
