package io.sluice.benchmark.tpc;

import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import scala.Tuple2;

/**
 * An RDD {@code partitionBy} of (long, 100 random bytes) records with a hash partitioner: the plain
 * RDD shuffle of mid-sized records, incompressible, so that neither codec nor aggregation hides
 * what the shuffle itself costs per byte.
 */
final class PartitionByQuery implements TpcQuery {
  static final int VALUE_BYTES = 100;

  @Override
  public QuerySpec spec() {
    return QuerySpec.PARTITION_BY;
  }

  @Override
  public QueryOutcome run(QueryInputs in) {
    long total = in.generator().orderCount() * 10 / 3;
    long seed = in.seed();
    JavaRDD<Tuple2<Long, byte[]>> records = RddSource.generate(in, total, j -> record(seed, j));
    List<long[]> parts =
        JavaPairRDD.fromJavaRDD(records)
            .partitionBy(new HashPartitioner(in.rddPartitions()))
            .mapPartitions(PartitionByQuery::summarize)
            .collect();
    return QueryOutcome.ofPartitions(parts, total + " records");
  }

  private static Tuple2<Long, byte[]> record(long seed, long j) {
    SplittableRandom rng = new SplittableRandom(Checksums.mix(seed * 0x9E3779B97F4A7C15L ^ j));
    byte[] value = new byte[VALUE_BYTES];
    for (int i = 0; i < VALUE_BYTES; i += 8) {
      long bits = rng.nextLong();
      for (int b = 0; b < 8 && i + b < VALUE_BYTES; b++) {
        value[i + b] = (byte) (bits >>> (8 * b));
      }
    }
    return new Tuple2<>(rng.nextLong(), value);
  }

  private static Iterator<long[]> summarize(Iterator<Tuple2<Long, byte[]>> records) {
    long count = 0;
    long checksum = 0;
    while (records.hasNext()) {
      Tuple2<Long, byte[]> r = records.next();
      long h = 0xCBF29CE484222325L ^ r._1();
      for (byte b : r._2()) {
        h = (h ^ b) * 0x100000001B3L;
      }
      count++;
      checksum += Checksums.term(h);
    }
    return List.of(new long[] {count, checksum}).iterator();
  }
}
