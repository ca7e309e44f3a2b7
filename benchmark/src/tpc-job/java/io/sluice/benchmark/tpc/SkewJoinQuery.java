package io.sluice.benchmark.tpc;

import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RuntimeConfig;

/**
 * lineitem joined with a dimension on a skewed key (three keys hold 30% of the rows), with AQE's
 * skew-join handling on: the hot reduce partitions are read in slices of map ranges, which is the
 * path a remote shuffle must serve by map range. The thresholds scale with the data so that even
 * the smoke size splits.
 */
final class SkewJoinQuery implements TpcQuery {
  @Override
  public QuerySpec spec() {
    return QuerySpec.SKEW_JOIN;
  }

  /** Partitions past this size (and 5x the median) are skewed; slices aim at the same size. */
  static long skewThresholdBytes(double scale) {
    return Math.max(256L << 10, Math.min(256L << 20, (long) (scale * (16L << 20))));
  }

  @Override
  public QueryOutcome run(QueryInputs in) {
    String threshold = String.valueOf(skewThresholdBytes(in.scale()));
    Map<String, String> settings =
        Map.of(
            "spark.sql.adaptive.enabled",
            "true",
            "spark.sql.adaptive.skewJoin.enabled",
            "true",
            "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes",
            threshold,
            "spark.sql.adaptive.advisoryPartitionSizeInBytes",
            threshold);
    RuntimeConfig conf = in.spark().conf();
    Map<String, String> saved = new HashMap<>();
    settings.forEach(
        (k, v) -> {
          saved.put(k, conf.contains(k) ? conf.get(k) : null);
          conf.set(k, v);
        });
    try {
      Dataset<Row> lineitem = in.lineitem();
      Dataset<Row> dim = in.skewDimension();
      Dataset<Row> joined = lineitem.join(dim, lineitem.col("l_skewkey").equalTo(dim.col("s_key")));
      Dataset<Row> summary = Checksums.summary(joined);
      Row r = summary.collectAsList().get(0);
      boolean split = summary.queryExecution().executedPlan().toString().contains("skew=true");
      return Checksums.outcome(
          r, split ? "AQE split skewed partitions" : "AQE found no partition to split");
    } finally {
      saved.forEach(
          (k, v) -> {
            if (v == null) {
              conf.unset(k);
            } else {
              conf.set(k, v);
            }
          });
    }
  }
}
