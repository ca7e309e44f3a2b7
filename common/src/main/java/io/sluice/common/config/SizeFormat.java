package io.sluice.common.config;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sizes in bytes written with binary units: {@code 512}, {@code 64k}, {@code 64m}, {@code 1.5g},
 * {@code 2t}, {@code 1p}, case-insensitive, with an optional trailing {@code b} or {@code ib}
 * ({@code 64mb}, {@code 64MiB}). One {@code k} is 1024 bytes. A fraction is accepted when it comes
 * to a whole number of bytes.
 */
final class SizeFormat {
  static final String ACCEPTED_FORM = "a size such as 512m, 4g or 1048576 (bytes)";

  private static final Pattern SIZE =
      Pattern.compile("(-?)(\\d+(?:\\.\\d+)?)\\s*(?:([kmgtp])(?:i?b)?|b)?");
  private static final String UNITS = "kmgtp";

  private SizeFormat() {}

  static long parse(String text) throws InvalidValueException {
    Matcher m = SIZE.matcher(text.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new InvalidValueException();
    }
    if (!m.group(1).isEmpty()) {
      throw new InvalidValueException("a size cannot be negative");
    }
    BigDecimal amount = new BigDecimal(m.group(2));
    String unit = m.group(3);
    BigDecimal bytes =
        unit == null ? amount : amount.multiply(BigDecimal.valueOf(unitBytes(unit.charAt(0))));
    try {
      return bytes.longValueExact();
    } catch (ArithmeticException e) {
      if (bytes.stripTrailingZeros().scale() > 0) {
        throw new InvalidValueException("not a whole number of bytes");
      }
      throw new InvalidValueException("too large for a 64-bit byte count");
    }
  }

  /** The shortest exact text of a byte count: 67108864 is {@code 64m}, 1000 stays {@code 1000}. */
  static String format(long bytes) {
    if (bytes != 0) {
      for (int i = UNITS.length() - 1; i >= 0; i--) {
        long unitBytes = unitBytes(UNITS.charAt(i));
        if (bytes % unitBytes == 0) {
          return (bytes / unitBytes) + String.valueOf(UNITS.charAt(i));
        }
      }
    }
    return Long.toString(bytes);
  }

  private static long unitBytes(char unit) {
    return 1L << (10 * (UNITS.indexOf(unit) + 1));
  }
}
