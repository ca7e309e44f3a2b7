package io.sluice.common.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * How the text of one kind of value is read (a size, a duration, an integer, ...), what the
 * accepted form is called in messages and docs, and, for ordered kinds, the magnitude that {@code
 * min} and {@code max} limits compare against. Sizes compare in bytes, durations in milliseconds.
 */
final class ValueKind<T> {
  @FunctionalInterface
  interface Parser<T> {
    /** Reads an already trimmed text. */
    T parse(String text) throws InvalidValueException;
  }

  private static final Pattern INTEGER = Pattern.compile("[+-]?\\d+");
  private static final Pattern DECIMAL =
      Pattern.compile("[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?");

  private final String acceptedForm;
  private final Parser<T> parser;

  /** Null for kinds without an order (strings, booleans, lists, enums). */
  private final Function<T, BigDecimal> magnitude;

  private final Function<BigDecimal, String> limitText;
  private final boolean fractional;

  private ValueKind(
      String acceptedForm,
      Parser<T> parser,
      Function<T, BigDecimal> magnitude,
      Function<BigDecimal, String> limitText,
      boolean fractional) {
    this.acceptedForm = acceptedForm;
    this.parser = parser;
    this.magnitude = magnitude;
    this.limitText = limitText;
    this.fractional = fractional;
  }

  private static <T> ValueKind<T> unordered(String acceptedForm, Parser<T> parser) {
    return new ValueKind<>(acceptedForm, parser, null, null, false);
  }

  static ValueKind<Long> size() {
    return new ValueKind<>(
        SizeFormat.ACCEPTED_FORM,
        SizeFormat::parse,
        BigDecimal::valueOf,
        limit -> SizeFormat.format(limit.longValueExact()),
        false);
  }

  static ValueKind<Duration> duration() {
    return new ValueKind<>(
        DurationFormat.ACCEPTED_FORM,
        DurationFormat::parse,
        d -> BigDecimal.valueOf(d.toMillis()),
        limit -> DurationFormat.format(limit.longValueExact()),
        false);
  }

  static ValueKind<Integer> integer() {
    return new ValueKind<>(
        "an integer",
        text -> (int) parseWhole(text, Integer.MIN_VALUE, Integer.MAX_VALUE, "32-bit"),
        BigDecimal::valueOf,
        BigDecimal::toPlainString,
        false);
  }

  static ValueKind<Long> longValue() {
    return new ValueKind<>(
        "an integer",
        text -> parseWhole(text, Long.MIN_VALUE, Long.MAX_VALUE, "64-bit"),
        BigDecimal::valueOf,
        BigDecimal::toPlainString,
        false);
  }

  static ValueKind<Double> doubleValue() {
    return new ValueKind<>(
        "a number such as 0.75",
        ValueKind::parseDecimal,
        BigDecimal::valueOf,
        BigDecimal::toPlainString,
        true);
  }

  static ValueKind<Boolean> bool() {
    return unordered(
        "true or false",
        text -> {
          if (text.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
          }
          if (text.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
          }
          throw new InvalidValueException();
        });
  }

  static ValueKind<String> string() {
    return unordered("a string", text -> text);
  }

  static ValueKind<List<String>> list() {
    return unordered(
        "a comma-separated list",
        text ->
            Arrays.stream(text.split(","))
                .map(String::trim)
                .filter(item -> !item.isEmpty())
                .collect(Collectors.toUnmodifiableList()));
  }

  static <E extends Enum<E>> ValueKind<E> enumValue(Class<E> type) {
    E[] constants = type.getEnumConstants();
    String names =
        Arrays.stream(constants)
            .map(c -> c.name().toLowerCase(Locale.ROOT))
            .collect(Collectors.joining(", "));
    return unordered(
        "one of: " + names,
        text -> {
          for (E constant : constants) {
            if (constant.name().equalsIgnoreCase(text)) {
              return constant;
            }
          }
          throw new InvalidValueException();
        });
  }

  T parse(String text) throws InvalidValueException {
    return parser.parse(text);
  }

  String acceptedForm() {
    return acceptedForm;
  }

  /** Whether {@code min}/{@code max} limits apply to this kind. */
  boolean isOrdered() {
    return magnitude != null;
  }

  /** Whether limits may have a fractional part (only plain numbers). */
  boolean isFractional() {
    return fractional;
  }

  BigDecimal magnitude(T value) {
    return magnitude.apply(value);
  }

  /** A limit as users write it: sizes as {@code 64m}, durations as {@code 30s}. */
  String limitText(BigDecimal limit) {
    return limitText.apply(limit);
  }

  private static long parseWhole(String text, long min, long max, String width)
      throws InvalidValueException {
    if (!INTEGER.matcher(text).matches()) {
      throw new InvalidValueException();
    }
    BigDecimal value = new BigDecimal(text);
    if (value.compareTo(BigDecimal.valueOf(min)) < 0
        || value.compareTo(BigDecimal.valueOf(max)) > 0) {
      throw new InvalidValueException("outside the range of a " + width + " integer");
    }
    return value.longValueExact();
  }

  private static double parseDecimal(String text) throws InvalidValueException {
    // Double.parseDouble also takes "NaN", "Infinity", "1d" and hex; a config file should not.
    if (!DECIMAL.matcher(text).matches()) {
      throw new InvalidValueException();
    }
    double value = Double.parseDouble(text);
    if (Double.isInfinite(value)) {
      throw new InvalidValueException("too large");
    }
    return value;
  }
}
