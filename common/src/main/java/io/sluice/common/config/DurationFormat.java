package io.sluice.common.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations written with a unit: {@code 500ms}, {@code 30s}, {@code 5m} or {@code 5min}, {@code
 * 1h}, {@code 2d}, case-insensitive. A fraction is accepted when it comes to whole milliseconds
 * ({@code 1.5s}). A bare number is refused: whether {@code 30} meant seconds or milliseconds is
 * exactly the mistake a unit prevents.
 */
final class DurationFormat {
  static final String ACCEPTED_FORM = "a duration such as 500ms, 30s, 5m, 1h or 2d";
  static final String UNITS_TEXT = "ms, s, m or min, h, d";

  private static final Pattern DURATION =
      Pattern.compile("(-?)(\\d+(?:\\.\\d+)?)\\s*(ms|s|min|m|h|d)");
  private static final Pattern BARE_NUMBER = Pattern.compile("-?\\d+(?:\\.\\d+)?");

  private static final long SECOND = 1000;
  private static final long MINUTE = 60 * SECOND;
  private static final long HOUR = 60 * MINUTE;
  private static final long DAY = 24 * HOUR;

  private DurationFormat() {}

  static Duration parse(String text) throws InvalidValueException {
    String lower = text.toLowerCase(Locale.ROOT);
    Matcher m = DURATION.matcher(lower);
    if (!m.matches()) {
      if (BARE_NUMBER.matcher(lower).matches()) {
        throw new InvalidValueException("a duration needs a unit (" + UNITS_TEXT + ")");
      }
      throw new InvalidValueException();
    }
    if (!m.group(1).isEmpty()) {
      throw new InvalidValueException("a duration cannot be negative");
    }
    BigDecimal millis =
        new BigDecimal(m.group(2)).multiply(BigDecimal.valueOf(unitMillis(m.group(3))));
    try {
      return Duration.ofMillis(millis.longValueExact());
    } catch (ArithmeticException e) {
      if (millis.stripTrailingZeros().scale() > 0) {
        throw new InvalidValueException("not a whole number of milliseconds");
      }
      throw new InvalidValueException("too long");
    }
  }

  /**
   * The shortest exact text of a number of milliseconds: 300000 is {@code 5m}, 1500 is {@code
   * 1500ms}.
   */
  static String format(long millis) {
    if (millis != 0) {
      if (millis % DAY == 0) {
        return millis / DAY + "d";
      }
      if (millis % HOUR == 0) {
        return millis / HOUR + "h";
      }
      if (millis % MINUTE == 0) {
        return millis / MINUTE + "m";
      }
      if (millis % SECOND == 0) {
        return millis / SECOND + "s";
      }
    }
    return millis + "ms";
  }

  private static long unitMillis(String unit) {
    return switch (unit) {
      case "ms" -> 1;
      case "s" -> SECOND;
      case "m", "min" -> MINUTE;
      case "h" -> HOUR;
      case "d" -> DAY;
      default -> throw new IllegalArgumentException(unit);
    };
  }
}
