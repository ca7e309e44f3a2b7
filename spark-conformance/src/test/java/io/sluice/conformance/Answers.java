package io.sluice.conformance;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apache.spark.sql.Row;

/**
 * A query's answer compared without regard to row order: rows are sorted by a key in which
 * floating-point values are rounded to nine significant digits, then compared value by value,
 * floating-point values to a relative 1e-9 (a different order of summation changes the last bits),
 * everything else, decimals included, exactly.
 */
final class Answers {
  static final double RELATIVE_TOLERANCE = 1e-9;

  private Answers() {}

  /** Null if the two answers are equal; otherwise what differs first, for the failure message. */
  static String difference(List<Row> expected, List<Row> actual) {
    if (expected.size() != actual.size()) {
      return expected.size() + " rows expected, " + actual.size() + " found";
    }
    List<Row> e = sorted(expected);
    List<Row> a = sorted(actual);
    for (int r = 0; r < e.size(); r++) {
      Row x = e.get(r);
      Row y = a.get(r);
      if (x.length() != y.length()) {
        return "row " + r + " has " + x.length() + " columns expected, " + y.length() + " found";
      }
      for (int c = 0; c < x.length(); c++) {
        if (!same(x.get(c), y.get(c))) {
          return "row "
              + r
              + " (in sorted order), column "
              + c
              + ": expected "
              + x
              + ", found "
              + y;
        }
      }
    }
    return null;
  }

  private static List<Row> sorted(List<Row> rows) {
    List<Row> copy = new ArrayList<>(rows);
    copy.sort(Comparator.comparing(Answers::key));
    return copy;
  }

  private static String key(Row row) {
    StringBuilder key = new StringBuilder();
    for (int c = 0; c < row.length(); c++) {
      Object v = row.get(c);
      if (isFloatingPoint(v)) {
        key.append(String.format(Locale.ROOT, "%.9g", ((Number) v).doubleValue()));
      } else if (v instanceof BigDecimal d) {
        key.append(d.toPlainString());
      } else {
        key.append(v);
      }
      key.append('\u0001');
    }
    return key.toString();
  }

  private static boolean isFloatingPoint(Object v) {
    return v instanceof Double || v instanceof Float;
  }

  private static boolean same(Object x, Object y) {
    if (isFloatingPoint(x) && isFloatingPoint(y)) {
      double a = ((Number) x).doubleValue();
      double b = ((Number) y).doubleValue();
      if (Double.isNaN(a) || Double.isNaN(b) || Double.isInfinite(a) || Double.isInfinite(b)) {
        return Double.compare(a, b) == 0;
      }
      return Math.abs(a - b) <= RELATIVE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
    }
    if (x instanceof BigDecimal a && y instanceof BigDecimal b) {
      return a.compareTo(b) == 0 && a.scale() == b.scale();
    }
    return Objects.equals(x, y);
  }
}
