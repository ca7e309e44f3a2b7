package io.sluice.benchmark.tpc;

import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaRDD;

/**
 * An RDD {@code repartition} of wide rows: 1 KiB text records in lineitem's {@code .tbl} format,
 * spread round-robin over the reduce partitions, so that bulk bytes rather than records dominate.
 */
final class RepartitionQuery implements TpcQuery {
  static final int ROW_CHARS = 1024;

  @Override
  public QuerySpec spec() {
    return QuerySpec.REPARTITION;
  }

  @Override
  public QueryOutcome run(QueryInputs in) {
    long total = in.generator().orderCount() * 2 / 3;
    long seed = in.seed();
    JavaRDD<String> rows = RddSource.generate(in, total, j -> wideRow(seed, j));
    List<long[]> parts =
        rows.repartition(in.rddPartitions()).mapPartitions(RepartitionQuery::summarize).collect();
    return QueryOutcome.ofPartitions(parts, "");
  }

  static String wideRow(long seed, long j) {
    SplittableRandom rng = new SplittableRandom(Checksums.mix(seed * 0x9E3779B97F4A7C15L + j));
    StringBuilder sb = new StringBuilder(ROW_CHARS + 200);
    long order = TpchGenerator.orderKey(j);
    for (int line = 1; sb.length() < ROW_CHARS; line++) {
      int quantity = 1 + rng.nextInt(50);
      sb.append(order)
          .append('|')
          .append(1 + rng.nextInt(200_000))
          .append('|')
          .append(1 + rng.nextInt(10_000))
          .append('|')
          .append(line)
          .append('|')
          .append(quantity)
          .append('|')
          .append(quantity * (900 + rng.nextInt(1_100)))
          .append(".00|0.0")
          .append(rng.nextInt(10))
          .append("|0.0")
          .append(rng.nextInt(9))
          .append("|N|O|199")
          .append(2 + rng.nextInt(7))
          .append("-0")
          .append(1 + rng.nextInt(9))
          .append('-')
          .append(10 + rng.nextInt(18))
          .append('|')
          .append(TextPool.phrase(rng, 10, 43))
          .append("|\n");
    }
    sb.setLength(ROW_CHARS);
    return sb.toString();
  }

  private static Iterator<long[]> summarize(Iterator<String> rows) {
    long count = 0;
    long checksum = 0;
    while (rows.hasNext()) {
      String row = rows.next();
      long h = 0xCBF29CE484222325L;
      for (int i = 0; i < row.length(); i++) {
        h = (h ^ row.charAt(i)) * 0x100000001B3L;
      }
      count++;
      checksum += Checksums.term(h);
    }
    return List.of(new long[] {count, checksum}).iterator();
  }
}
