package io.sluice.benchmark.tpc;

import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import scala.Tuple2;

/**
 * An RDD {@code groupByKey} of many small records (a long key and an int value, about 16 values per
 * key): no map-side combine, so every record crosses the shuffle, and per-record costs dominate.
 */
final class GroupByKeyQuery implements TpcQuery {
  /** Small records per order of the scale factor: 12 million at SF 1. */
  static final int RECORDS_PER_ORDER = 8;

  @Override
  public QuerySpec spec() {
    return QuerySpec.GROUP_BY_KEY;
  }

  @Override
  public QueryOutcome run(QueryInputs in) {
    long total = in.generator().orderCount() * RECORDS_PER_ORDER;
    long keys = Math.max(1, total / 16);
    long seed = in.seed();
    JavaRDD<Tuple2<Long, Integer>> records =
        RddSource.generate(
            in,
            total,
            j -> {
              long h = Checksums.mix(seed * 31 + j);
              return new Tuple2<>(TpchGenerator.orderKey(Math.floorMod(h, keys)), (int) (h >>> 40));
            });
    List<long[]> parts =
        JavaPairRDD.fromJavaRDD(records)
            .groupByKey(in.rddPartitions())
            .mapPartitions(GroupByKeyQuery::summarize)
            .collect();
    return QueryOutcome.ofPartitions(parts, total + " records");
  }

  private static Iterator<long[]> summarize(Iterator<Tuple2<Long, Iterable<Integer>>> groups) {
    long count = 0;
    long checksum = 0;
    while (groups.hasNext()) {
      Tuple2<Long, Iterable<Integer>> g = groups.next();
      long n = 0;
      long sum = 0;
      for (int v : g._2()) {
        n++;
        sum += v;
      }
      count++;
      checksum += Checksums.term(g._1() * 1_000_003L ^ Checksums.mix(n * 31 + sum));
    }
    return List.of(new long[] {count, checksum}).iterator();
  }
}
