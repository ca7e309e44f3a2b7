package io.sluice.benchmark.tpc;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.xxhash64;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Order-independent checksums of results: the row count and the sum of a 64-bit hash of every row,
 * so a result is compared without bringing its rows to the driver. Sums are taken modulo a prime
 * below 2^31 per row, so that they cannot overflow below 4 billion rows.
 */
final class Checksums {
  static final long MODULUS = 2_147_483_647L;

  private Checksums() {}

  /** The hash of one row of {@code table}, over all its columns. */
  static Column rowHash(Dataset<Row> table) {
    return xxhash64(Arrays.stream(table.columns()).map(c -> col(c)).toArray(Column[]::new));
  }

  /** The count and the checksum of every column of every row of {@code result}. */
  static QueryOutcome of(Dataset<Row> result, String note) {
    return outcome(summary(result).collectAsList().get(0), note);
  }

  /**
   * One row: the count and the checksum of {@code result}; not computed yet. Collect it with {@code
   * collectAsList()}, which runs this plan itself ({@code first()} would plan a new one).
   */
  static Dataset<Row> summary(Dataset<Row> result) {
    return result.agg(count(lit(1)), sum(pmod(rowHash(result), lit(MODULUS))));
  }

  /** The outcome read from the row of {@link #summary}. */
  static QueryOutcome outcome(Row summary, String note) {
    return new QueryOutcome(summary.getLong(0), summary.isNullAt(1) ? 0 : summary.getLong(1), note);
  }

  /**
   * The count and the checksum of rows collected to the driver (a TPC-DS query's answer), each row
   * hashed over a text of its values in which floating-point values keep 9 significant digits: two
   * answers that differ only in how the partitions of a double sum were added up checksum alike.
   */
  static QueryOutcome ofRows(List<Row> rows, String note) {
    long checksum = 0;
    for (Row row : rows) {
      checksum += term(fnv64(canonical(row)));
    }
    return new QueryOutcome(rows.size(), checksum, note);
  }

  private static final MathContext DOUBLE_DIGITS = new MathContext(9, RoundingMode.HALF_EVEN);

  private static String canonical(Row row) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < row.length(); i++) {
      Object v = row.get(i);
      if (v == null) {
        text.append('\u0000');
      } else if (v instanceof Double || v instanceof Float) {
        double d = ((Number) v).doubleValue();
        text.append(
            Double.isFinite(d) && d != 0
                ? new BigDecimal(d).round(DOUBLE_DIGITS).stripTrailingZeros().toString()
                : String.valueOf(d == 0 ? 0.0 : d));
      } else if (v instanceof BigDecimal b) {
        text.append(b.toPlainString());
      } else if (v instanceof byte[] bytes) {
        text.append(Arrays.toString(bytes));
      } else {
        text.append(v);
      }
      text.append('\u0001');
    }
    return text.toString();
  }

  private static long fnv64(String text) {
    long h = 0xCBF29CE484222325L;
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ (b & 0xFF)) * 0x100000001B3L;
    }
    return h;
  }

  /** Folds a 64-bit value into a checksum term in the same range as the SQL checksums'. */
  static long term(long value) {
    return Math.floorMod(mix(value), MODULUS);
  }

  static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
    z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
    return z ^ (z >>> 33);
  }
}
