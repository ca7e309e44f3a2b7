package io.sluice.benchmark.tpc;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The generated tables as Parquet, laid out as {@link TableLayout} says. They are written once
 * (before any measured run) and read by every run, so that row generation, which is the same for
 * both modes and no shuffle at all, stays out of the measured time; reading Parquet stays in, as in
 * any real TPC-H run.
 */
final class TpchTables {
  private static final DataType MONEY = DataTypes.createDecimalType(12, 2);

  static final StructType LINEITEM_SCHEMA =
      new StructType(
          new StructField[] {
            field("l_orderkey", DataTypes.LongType),
            field("l_partkey", DataTypes.LongType),
            field("l_suppkey", DataTypes.LongType),
            field("l_linenumber", DataTypes.IntegerType),
            field("l_quantity", MONEY),
            field("l_extendedprice", MONEY),
            field("l_discount", MONEY),
            field("l_tax", MONEY),
            field("l_returnflag", DataTypes.StringType),
            field("l_linestatus", DataTypes.StringType),
            field("l_shipdate", DataTypes.DateType),
            field("l_commitdate", DataTypes.DateType),
            field("l_receiptdate", DataTypes.DateType),
            field("l_shipinstruct", DataTypes.StringType),
            field("l_shipmode", DataTypes.StringType),
            field("l_comment", DataTypes.StringType),
            field("l_skewkey", DataTypes.IntegerType)
          });

  static final StructType ORDERS_SCHEMA =
      new StructType(
          new StructField[] {
            field("o_orderkey", DataTypes.LongType), field("o_custkey", DataTypes.LongType),
            field("o_orderstatus", DataTypes.StringType), field("o_totalprice", MONEY),
            field("o_orderdate", DataTypes.DateType),
                field("o_orderpriority", DataTypes.StringType),
            field("o_clerk", DataTypes.StringType), field("o_shippriority", DataTypes.IntegerType),
            field("o_comment", DataTypes.StringType)
          });

  static final StructType SKEW_DIMENSION_SCHEMA =
      new StructType(
          new StructField[] {
            field("s_key", DataTypes.IntegerType), field("s_name", DataTypes.StringType),
            field("s_discount", MONEY), field("s_comment", DataTypes.StringType)
          });

  private TpchTables() {}

  private static StructField field(String name, DataType type) {
    return DataTypes.createStructField(name, type, false);
  }

  static void write(SparkSession spark, DataLocation dir, TpchGenerator generator, int partitions) {
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    List<Integer> ids = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      ids.add(p);
    }
    JavaRDD<Integer> tasks = sc.parallelize(ids, partitions);
    save(
        spark.createDataFrame(
            tasks.mapPartitions(it -> generator.orders(it.next())), ORDERS_SCHEMA),
        dir.child(TableLayout.ORDERS));
    save(
        spark.createDataFrame(
            tasks.mapPartitions(it -> generator.lineitems(it.next())), LINEITEM_SCHEMA),
        dir.child(TableLayout.LINEITEM));
    save(
        spark.createDataFrame(
            tasks.mapPartitions(it -> generator.skewDimension(it.next())), SKEW_DIMENSION_SCHEMA),
        dir.child(TableLayout.SKEW_DIMENSION));
  }

  private static void save(Dataset<Row> table, DataLocation path) {
    table.write().mode(SaveMode.Overwrite).parquet(path.uri());
  }

  static Dataset<Row> read(SparkSession spark, DataLocation dir, String table) {
    return spark.read().parquet(dir.child(table).uri());
  }
}
