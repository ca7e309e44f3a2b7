package io.sluice.benchmark.tpc;

import java.math.BigDecimal;

/** TPC-H scale factors as the command line gives them: a number, or {@code smoke} for 0.01. */
final class ScaleFactor {
  /** About 60,000 lineitem rows: the size the test suite runs to keep the harness working. */
  static final double SMOKE = 0.01;

  private ScaleFactor() {}

  static double parse(String text) {
    if ("smoke".equalsIgnoreCase(text)) {
      return SMOKE;
    }
    double scale = Double.parseDouble(text);
    if (!(scale > 0) || Double.isInfinite(scale)) {
      throw new IllegalArgumentException("--scale must be a positive number or 'smoke': " + text);
    }
    return scale;
  }

  /** The shortest exact decimal text of a scale factor: 1, 0.01, 2.5. */
  static String format(double scale) {
    return BigDecimal.valueOf(scale).stripTrailingZeros().toPlainString();
  }
}
