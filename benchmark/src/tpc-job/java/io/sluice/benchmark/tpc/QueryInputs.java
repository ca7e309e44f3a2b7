package io.sluice.benchmark.tpc;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** What a query reads: the session, the generated tables, and the sizes the RDD queries use. */
record QueryInputs(
    SparkSession spark,
    DataLocation tables,
    TpchGenerator generator,
    double scale,
    long seed,
    int rddPartitions) {

  Dataset<Row> lineitem() {
    return TpchTables.read(spark, tables, TableLayout.LINEITEM);
  }

  Dataset<Row> orders() {
    return TpchTables.read(spark, tables, TableLayout.ORDERS);
  }

  Dataset<Row> skewDimension() {
    return TpchTables.read(spark, tables, TableLayout.SKEW_DIMENSION);
  }
}
