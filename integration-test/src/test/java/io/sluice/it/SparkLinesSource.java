package io.sluice.it;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.provider.ArgumentsSource;
import org.junit.jupiter.params.support.AnnotationConsumer;

/**
 * The Spark lines a parameterized test runs on: {@link #every()} line it applies to under the
 * {@code spark-lines-full} profile ({@code -Dsluice.spark.lines.full=true}), and only {@link
 * #byDefault()} in {@code mvn -B verify}, so that the default build runs each case on one line or a
 * few and still every line's smoke job, within the suite's time budget. A case {@link
 * #onlyInFull()} runs on no line by default: its test needs
 * {@code @ParameterizedTest(allowZeroInvocations = true)}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ArgumentsSource(SparkLinesSource.Provider.class)
@interface SparkLinesSource {
  String FULL_PROPERTY = "sluice.spark.lines.full";

  String[] every();

  /** A subset of {@link #every()}; empty means all of them. */
  String[] byDefault() default {};

  /**
   * Whether the default build runs the case on no line: one whose Spark 3.5 counterpart runs
   * in-process by default, and whose lines the lines' other cases already meet.
   */
  boolean onlyInFull() default false;

  final class Provider implements ArgumentsProvider, AnnotationConsumer<SparkLinesSource> {
    private String[] lines;

    @Override
    public void accept(SparkLinesSource source) {
      boolean full = Boolean.getBoolean(FULL_PROPERTY);
      for (String line : source.byDefault()) {
        if (!Arrays.asList(source.every()).contains(line)) {
          throw new IllegalArgumentException(
              "byDefault names "
                  + line
                  + ", which is not among every="
                  + Arrays.toString(source.every()));
        }
      }
      if (full) {
        lines = source.every();
      } else if (source.onlyInFull()) {
        lines = new String[0];
      } else {
        lines = source.byDefault().length == 0 ? source.every() : source.byDefault();
      }
    }

    @Override
    public Stream<? extends Arguments> provideArguments(ExtensionContext context) {
      return Arrays.stream(lines).map(Arguments::of);
    }
  }
}
