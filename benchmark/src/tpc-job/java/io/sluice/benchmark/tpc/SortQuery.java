package io.sluice.benchmark.tpc;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;

import java.io.Serializable;
import java.math.BigDecimal;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * A global sort of lineitem, terasort-like: a range-partitioned shuffle of whole rows. The rows are
 * not collected; each output partition is checked to be in order and to follow the previous one,
 * and contributes its count and checksum.
 */
final class SortQuery implements TpcQuery {
  @Override
  public QuerySpec spec() {
    return QuerySpec.SORT;
  }

  /**
   * A sort key; (price, order, line) is unique per row, so the order is total. A plain class, not a
   * record: Spark's Kryo serializer cannot build records.
   */
  static final class Key implements Serializable {
    private static final long serialVersionUID = 1L;
    static final Comparator<Key> ORDER =
        Comparator.comparing((Key k) -> k.price)
            .thenComparingLong(k -> k.order)
            .thenComparingInt(k -> k.line);
    final BigDecimal price;
    final long order;
    final int line;

    Key(BigDecimal price, long order, int line) {
      this.price = price;
      this.order = order;
      this.line = line;
    }
  }

  /** What one output partition holds. */
  static final class Slice implements Serializable {
    private static final long serialVersionUID = 1L;
    final int index;
    final long rows;
    final long checksum;
    final Key first;
    final Key last;
    final boolean ordered;

    Slice(int index, long rows, long checksum, Key first, Key last, boolean ordered) {
      this.index = index;
      this.rows = rows;
      this.checksum = checksum;
      this.first = first;
      this.last = last;
      this.ordered = ordered;
    }
  }

  @Override
  public QueryOutcome run(QueryInputs in) {
    Dataset<Row> lineitem = in.lineitem();
    Dataset<Row> keyed =
        lineitem
            .orderBy(col("l_extendedprice"), col("l_orderkey"), col("l_linenumber"))
            .select(
                col("l_extendedprice"),
                col("l_orderkey"),
                col("l_linenumber"),
                pmod(Checksums.rowHash(lineitem), lit(Checksums.MODULUS)).as("h"));
    List<Slice> slices = keyed.javaRDD().mapPartitionsWithIndex(SortQuery::slice, false).collect();
    long rows = 0;
    long checksum = 0;
    Key previous = null;
    List<Slice> inOrder =
        slices.stream().sorted(Comparator.comparingInt((Slice x) -> x.index)).toList();
    for (Slice s : inOrder) {
      if (!s.ordered) {
        throw new IllegalStateException("sort output partition " + s.index + " is not in order");
      }
      if (s.rows == 0) {
        continue;
      }
      if (previous != null && Key.ORDER.compare(previous, s.first) >= 0) {
        throw new IllegalStateException(
            "sort output partition " + s.index + " starts before the end of the previous one");
      }
      previous = s.last;
      rows += s.rows;
      checksum += s.checksum;
    }
    return new QueryOutcome(rows, checksum, slices.size() + " output partitions in order");
  }

  private static Iterator<Slice> slice(int index, Iterator<Row> rows) {
    long count = 0;
    long sum = 0;
    Key first = null;
    Key last = null;
    boolean ordered = true;
    while (rows.hasNext()) {
      Row r = rows.next();
      Key k = new Key(r.getDecimal(0), r.getLong(1), r.getInt(2));
      if (first == null) {
        first = k;
      } else if (Key.ORDER.compare(last, k) >= 0) {
        ordered = false;
      }
      last = k;
      count++;
      sum += r.getLong(3);
    }
    return List.of(new Slice(index, count, sum, first, last, ordered)).iterator();
  }
}
