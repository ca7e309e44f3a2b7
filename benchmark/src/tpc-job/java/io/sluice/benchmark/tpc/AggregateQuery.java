package io.sluice.benchmark.tpc;

import static org.apache.spark.sql.functions.avg;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.sum;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/** Q1-style pricing summary per order key: a hash aggregation whose shuffle carries most rows. */
final class AggregateQuery implements TpcQuery {
  @Override
  public QuerySpec spec() {
    return QuerySpec.AGGREGATE;
  }

  @Override
  public QueryOutcome run(QueryInputs in) {
    Column revenue = col("l_extendedprice").multiply(lit(1).minus(col("l_discount")));
    Dataset<Row> result =
        in.lineitem()
            .groupBy("l_orderkey")
            .agg(
                sum("l_quantity").as("sum_qty"),
                sum("l_extendedprice").as("sum_base_price"),
                sum(revenue).as("sum_disc_price"),
                sum(revenue.multiply(lit(1).plus(col("l_tax")))).as("sum_charge"),
                avg("l_discount").as("avg_disc"),
                count(lit(1)).as("count_lines"),
                max("l_shipdate").as("last_ship"),
                min("l_commitdate").as("first_commit"));
    return Checksums.of(result, "");
  }
}
