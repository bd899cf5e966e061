package io.sluice.simulator;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads a duration option: a whole number and a unit ({@code 250us 500ms 1s 5m 1h 1d}) or ISO-8601 ({@code PT1S}). */
public final class DurationConverter implements ITypeConverter<Duration> {

    private static final Pattern AMOUNT_AND_UNIT = Pattern.compile("(\\d{1,12})(us|ms|s|m|h|d)");

    /** Writes {@code duration} the way this converter reads it, in its largest whole unit: {@code 90s}, {@code 1h}. */
    static String format(Duration duration) {
        return formatMicros(duration.getSeconds() * 1_000_000L + duration.getNano() / 1_000);
    }

    /** Writes {@code micros} microseconds the way this converter reads them, in their largest whole unit. */
    static String formatMicros(long micros) {
        long[] unitMicros = {86_400_000_000L, 3_600_000_000L, 60_000_000L, 1_000_000L, 1_000L};
        String[] unitNames = {"d", "h", "m", "s", "ms"};
        for (int i = 0; i < unitMicros.length; i++) {
            if (micros != 0 && micros % unitMicros[i] == 0) {
                return micros / unitMicros[i] + unitNames[i];
            }
        }
        return micros == 0 ? "0s" : micros + "us";
    }

    @Override
    public Duration convert(String value) {
        Matcher matcher = AMOUNT_AND_UNIT.matcher(value);
        if (matcher.matches()) {
            long amount = Long.parseLong(matcher.group(1));
            switch (matcher.group(2)) {
                case "us":
                    return Duration.of(amount, ChronoUnit.MICROS);
                case "ms":
                    return Duration.ofMillis(amount);
                case "s":
                    return Duration.ofSeconds(amount);
                case "m":
                    return Duration.ofMinutes(amount);
                case "h":
                    return Duration.ofHours(amount);
                default:
                    return Duration.ofDays(amount);
            }
        }
        try {
            return Duration.parse(value);
        } catch (DateTimeParseException e) {
            throw new TypeConversionException("'" + value
                    + "' is not a duration such as 500ms, 1s, 5m, 1h, 1d or PT1S");
        }
    }
}
