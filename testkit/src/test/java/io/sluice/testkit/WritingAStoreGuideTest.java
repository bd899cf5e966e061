package io.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The guide docs/writing-a-store.md shows the code of a store that the build compiles and runs
 * through the kit ({@code com.example.store} in this module's tests): every block of it that
 * names its source is that source, region by region, so the guide cannot drift from code that
 * passes the kit.
 */
class WritingAStoreGuideTest {

    private static final Path ROOT = Path.of("..");
    private static final Path GUIDE = ROOT.resolve("docs/writing-a-store.md");

    /** {@code <!-- include path#region -->} (or the whole file without {@code #region}), then a code block. */
    private static final Pattern INCLUDE = Pattern.compile(
            "<!-- include ([^#\\s]+)(?:#(\\S+))? -->\\n```\\w*\\n(.*?)```", Pattern.DOTALL);

    private static final Pattern TAG = Pattern.compile("\\s*// (tag|end)::[\\w-]+\\[]\\s*");

    @Test
    void everyIncludedBlockIsItsSourceVerbatim() throws IOException {
        String guide = Files.readString(GUIDE);
        Matcher include = INCLUDE.matcher(guide);
        List<String> checked = new ArrayList<>();
        while (include.find()) {
            String source = include.group(1);
            String region = include.group(2);
            String expected = region == null ? wholeFile(ROOT.resolve(source)) : region(ROOT.resolve(source), region);
            assertThat(include.group(3)).as("the block of %s%s in %s", source, region == null ? "" : "#" + region,
                    GUIDE).isEqualTo(expected);
            checked.add(source + (region == null ? "" : "#" + region));
        }
        // The guide builds the whole store, shows the kit's test class and the benchmark hook.
        assertThat(checked).contains(
                "testkit/src/test/java/com/example/store/MapCasStore.java#class",
                "testkit/src/test/java/com/example/store/MapCasStore.java#capabilities",
                "testkit/src/test/java/com/example/store/MapCasStore.java#tryAcquire",
                "testkit/src/test/java/com/example/store/MapCasStore.java#expiry",
                "testkit/src/test/java/com/example/store/MapCasStore.java",
                "testkit/src/test/java/com/example/store/MapCasStoreConformanceTest.java#kit",
                "testkit/src/test/java/com/example/store/MapCasStoreProvider.java#provider");
    }

    private static String wholeFile(Path file) throws IOException {
        return Files.readAllLines(file).stream().filter(line -> !TAG.matcher(line).matches())
                .map(line -> line + "\n").collect(Collectors.joining());
    }

    private static String region(Path file, String name) throws IOException {
        List<String> lines = Files.readAllLines(file);
        int start = lines.indexOf(indentOf(lines, "// tag::" + name + "[]") + "// tag::" + name + "[]");
        int end = lines.indexOf(indentOf(lines, "// end::" + name + "[]") + "// end::" + name + "[]");
        assertThat(start).as("region %s in %s", name, file).isNotNegative();
        assertThat(end).as("end of region %s in %s", name, file).isGreaterThan(start);
        return lines.subList(start + 1, end).stream().filter(line -> !TAG.matcher(line).matches())
                .map(line -> line + "\n").collect(Collectors.joining());
    }

    private static String indentOf(List<String> lines, String marker) {
        return lines.stream().filter(line -> line.strip().equals(marker)).findFirst()
                .map(line -> line.substring(0, line.indexOf(marker))).orElse("");
    }
}
