package io.sluice.benchmark.tpc;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/** lineitem joined with orders on the order key, every column kept: both sides shuffled whole. */
final class JoinQuery implements TpcQuery {
  @Override
  public QuerySpec spec() {
    return QuerySpec.JOIN;
  }

  @Override
  public QueryOutcome run(QueryInputs in) {
    Dataset<Row> lineitem = in.lineitem();
    Dataset<Row> orders = in.orders();
    Dataset<Row> joined =
        lineitem.join(orders, lineitem.col("l_orderkey").equalTo(orders.col("o_orderkey")));
    return Checksums.of(joined, "");
  }
}
