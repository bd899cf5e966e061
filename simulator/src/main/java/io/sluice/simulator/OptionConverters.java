package io.sluice.simulator;

import io.lettuce.core.RedisURI;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.FailurePolicy;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The {@code simulate} command's option types. Each turns a lookup's
 * {@link IllegalArgumentException}, which names the bad value, into picocli's usage error.
 */
final class OptionConverters {

    private OptionConverters() {
    }

    private static <T> T convert(String value, Function<String, T> byName) {
        try {
            return byName.apply(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }

    /** {@code --algorithm}: a built-in algorithm by name. */
    static final class AlgorithmConverter implements ITypeConverter<Algorithm> {
        @Override
        public Algorithm convert(String value) {
            return OptionConverters.convert(value, Algorithms::byName);
        }
    }

    /** {@code --balancer}. */
    static final class BalancerConverter implements ITypeConverter<Balancer> {
        @Override
        public Balancer convert(String value) {
            return OptionConverters.convert(value, Balancer::byName);
        }
    }

    /** {@code --store}. */
    static final class StoreKindConverter implements ITypeConverter<StoreKind> {
        @Override
        public StoreKind convert(String value) {
            return OptionConverters.convert(value, StoreKind::byName);
        }
    }

    /** {@code --redis}: a Redis URI as Lettuce reads it, {@code redis://[:password@]host:port[/db]}. */
    static final class RedisUriConverter implements ITypeConverter<RedisURI> {
        @Override
        public RedisURI convert(String value) {
            return OptionConverters.convert(value, uri -> {
                try {
                    return RedisURI.create(uri);
                } catch (IllegalArgumentException | UnsupportedOperationException e) {
                    throw new IllegalArgumentException("'" + uri + "' is not a Redis URI such as "
                            + "redis://127.0.0.1:6379: " + e.getMessage(), e);
                }
            });
        }
    }

    /** {@code --failure}: {@code closed}, {@code fallback} or {@code open}, the rate limiters' {@link FailurePolicy}. */
    static final class FailurePolicyConverter implements ITypeConverter<FailurePolicy> {
        @Override
        public FailurePolicy convert(String value) {
            return OptionConverters.convert(value, name -> {
                for (FailurePolicy policy : FailurePolicy.values()) {
                    if (optionName(policy).equals(name)) {
                        return policy;
                    }
                }
                throw new IllegalArgumentException("unknown failure policy '" + name + "', expected one of "
                        + Arrays.stream(FailurePolicy.values()).map(OptionConverters::optionName)
                                .collect(Collectors.joining(", ")));
            });
        }
    }

    /** The name of a failure policy on the command line: {@code FAIL_OPEN} is {@code open}. */
    static String optionName(FailurePolicy policy) {
        return policy.name().replaceFirst("^FAIL_", "").toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** {@code --outage FROM..TO}: two durations from the start of the traffic, {@code 2s..5s}. */
    static final class OutageConverter implements ITypeConverter<Outage> {
        @Override
        public Outage convert(String value) {
            int dots = value.indexOf("..");
            if (dots < 0) {
                throw new TypeConversionException("'" + value + "' is not an outage FROM..TO such as 2s..5s");
            }
            DurationConverter durations = new DurationConverter();
            Duration from = durations.convert(value.substring(0, dots));
            Duration to = durations.convert(value.substring(dots + 2));
            return OptionConverters.convert(value, ignored -> new Outage(micros(from), micros(to)));
        }
    }

    /**
     * {@code --also-limit [ALGORITHM:]PERMITS/PERIOD}: a further limit, {@code fixed-window} unless
     * named, such as {@code 1000000/1d} or {@code gcra:50/1s}.
     */
    static final class LimitConverter implements ITypeConverter<Limit> {
        private static final Pattern SPEC = Pattern.compile("(?:([a-z-]+):)?(\\d{1,10})/(.+)");

        @Override
        public Limit convert(String value) {
            Matcher matcher = SPEC.matcher(value);
            if (!matcher.matches()) {
                throw new TypeConversionException("'" + value
                        + "' is not a limit [ALGORITHM:]PERMITS/PERIOD such as 1000000/1d or gcra:50/1s");
            }
            Algorithm algorithm = matcher.group(1) == null ? Algorithms.FIXED_WINDOW
                    : OptionConverters.convert(matcher.group(1), Algorithms::byName);
            Duration period = new DurationConverter().convert(matcher.group(3));
            return OptionConverters.convert(value,
                    ignored -> Limit.of(algorithm, Long.parseLong(matcher.group(2)), period));
        }
    }

    private static long micros(Duration duration) {
        return duration.getSeconds() * 1_000_000L + duration.getNano() / 1_000;
    }
}
