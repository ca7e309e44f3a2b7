package io.sluice.benchmark.tpc;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.sha2;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Many small shuffles in one application, one after the other: each a SQL repartition by key of the
 * same {@value #ROWS} rows (a long and a 64-character hash, about 4 MiB as Spark writes it)
 * followed by the checksum's global aggregation, whatever the scale factor. What it measures is
 * what one shuffle costs regardless of its size (registering it, the first round trips of its
 * writes and reads, AQE's statistics), which most TPC-DS queries pay several times over; the
 * report's note gives the time per shuffle.
 */
final class SmallShufflesQuery implements TpcQuery {
  static final int SHUFFLES = 20;
  static final long ROWS = 50_000;
  private static final int MAP_TASKS = 4;
  private static final int PARTITIONS = 32;

  @Override
  public QuerySpec spec() {
    return QuerySpec.SMALL_SHUFFLES;
  }

  @Override
  public QueryOutcome run(QueryInputs in) {
    long rows = 0;
    long checksum = 0;
    long start = System.nanoTime();
    for (int i = 0; i < SHUFFLES; i++) {
      Dataset<Row> shuffled =
          in.spark()
              .range(0, ROWS, 1, MAP_TASKS)
              .withColumn("payload", sha2(col("id").plus(i).cast("string"), 256))
              .repartition(PARTITIONS, col("id"));
      QueryOutcome one = Checksums.of(shuffled, "");
      rows += one.rows();
      checksum += one.checksum();
    }
    double perShuffleMs = (System.nanoTime() - start) / 1e6 / SHUFFLES;
    return new QueryOutcome(
        rows,
        checksum,
        String.format("%d shuffles of %,d rows, %.0f ms each", SHUFFLES, ROWS, perShuffleMs));
  }
}
