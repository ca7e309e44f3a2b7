package io.sluice.benchmark.tpc;

import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.TPCDSSchema;
import scala.collection.JavaConverters;

/**
 * The TPC-DS tables as Spark's own TPC-DS tests define them ({@code TPCDSSchema} in Spark's
 * spark-sql test jar): each table's columns as DDL, with the names Spark's query texts use (for
 * example {@code c_last_review_date}, which dsdgen's port calls {@code c_last_review_date_sk}).
 * Spark's trait keeps the definitions in vals that its initializer sets through these setters.
 */
final class SparkTpcdsSchema implements TPCDSSchema {
  private scala.collection.immutable.Map<String, String> tableColumns;

  /** Raw: its value type is Scala 2.12's collection.Seq on Spark 3.5, 2.13's immutable.Seq on 4. */
  @SuppressWarnings("rawtypes")
  private scala.collection.immutable.Map tablePartitionColumns;

  SparkTpcdsSchema() {
    TPCDSSchema.$init$(this);
  }

  /** Table name to its columns' DDL, sorted by name. */
  static Map<String, String> tables() {
    return new TreeMap<>(
        JavaConverters.mapAsJavaMapConverter(new SparkTpcdsSchema().tableColumns()).asJava());
  }

  @Override
  public scala.collection.immutable.Map<String, String> tableColumns() {
    return tableColumns;
  }

  @Override
  @SuppressWarnings("rawtypes")
  public scala.collection.immutable.Map tablePartitionColumns() {
    return tablePartitionColumns;
  }

  @Override
  public void org$apache$spark$sql$TPCDSSchema$_setter_$tableColumns_$eq(
      scala.collection.immutable.Map<String, String> value) {
    this.tableColumns = value;
  }

  @Override
  @SuppressWarnings("rawtypes")
  public void org$apache$spark$sql$TPCDSSchema$_setter_$tablePartitionColumns_$eq(
      scala.collection.immutable.Map value) {
    this.tablePartitionColumns = value;
  }
}
