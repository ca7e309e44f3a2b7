package io.sluice.benchmark.tpc;

import io.trino.tpcds.Results;
import io.trino.tpcds.Session;
import io.trino.tpcds.Table;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Date;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.util.CharVarcharUtils;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * TPC-DS data at a scale factor, generated with dsdgen's Java port ({@code io.trino.tpcds} from
 * Maven Central, no downloaded data set) in Spark tasks, one per chunk of each table, and stored as
 * Parquet with Spark's own TPC-DS schema ({@link SparkTpcdsSchema}): a directory per table, kept
 * for later runs at the same scale ({@link Suite#complete} says whether the set is whole).
 */
public final class TpcdsTables {
  private TpcdsTables() {}

  /**
   * The data set at {@code scale} under {@code root}, a directory of this machine, generated with
   * {@code spark} if missing.
   */
  public static Path ensure(SparkSession spark, Path root, double scale) throws IOException {
    DataLocation dir = Suite.TPCDS.tables(DataLocation.of(root), scale, 0);
    if (!Suite.TPCDS.complete(dir, DataLocation::existsLocally)) {
      write(spark, dir, scale);
    }
    return dir.localPath();
  }

  /**
   * Writes every table into {@code dir}, in chunks: the Spark context's default parallelism, or two
   * per scale factor where that is more, so that large scales split into tasks of bounded size.
   */
  static void write(SparkSession spark, DataLocation dir, double scale) throws IOException {
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    int chunks = (int) Math.max(Math.max(1, sc.defaultParallelism()), Math.ceil(scale * 2));
    for (Map.Entry<String, String> table : SparkTpcdsSchema.tables().entrySet()) {
      StructType schema = storedSchema(table.getValue());
      String name = table.getKey();
      int width = schema.fields().length;
      JavaRDD<Row> rows =
          sc.parallelize(IntStream.rangeClosed(1, chunks).boxed().toList(), chunks)
              .flatMap(chunk -> generate(name, scale, chunks, chunk, schema, width));
      spark
          .createDataFrame(rows, schema)
          .write()
          .mode(SaveMode.Overwrite)
          .parquet(dir.child(name).uri());
    }
    new HadoopFiles(spark).writeString(dir.child(Suite.TPCDS_COMPLETE), "scale " + scale + "\n");
  }

  /**
   * Registers every table of the data set in {@code spark}'s catalog with Spark's own DDL, so that
   * CHAR and VARCHAR columns keep Spark's semantics.
   */
  public static void register(SparkSession spark, Path dir) {
    register(spark, DataLocation.of(dir));
  }

  static void register(SparkSession spark, DataLocation dir) {
    for (Map.Entry<String, String> table : SparkTpcdsSchema.tables().entrySet()) {
      spark.sql(
          "CREATE TABLE `"
              + table.getKey()
              + "` ("
              + table.getValue()
              + ") USING parquet "
              + "LOCATION '"
              + dir.child(table.getKey()).uri()
              + "'");
    }
  }

  /** Spark's DDL as Parquet stores it: CHAR and VARCHAR columns as strings. */
  private static StructType storedSchema(String ddl) {
    return CharVarcharUtils.replaceCharVarcharWithStringInSchema(StructType.fromDDL(ddl));
  }

  /** One chunk of one table's rows, as the generator gives them (strings, null for NULL). */
  private static Iterator<Row> generate(
      String table, double scale, int chunks, int chunk, StructType schema, int width) {
    Session session =
        Session.getDefaultSession()
            .withScale(scale)
            .withParallelism(chunks)
            .withChunkNumber(chunk)
            .withTable(Table.getTable(table));
    Iterator<List<List<String>>> generated =
        Results.constructResults(Table.getTable(table), session).iterator();
    StructField[] fields = schema.fields();
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return generated.hasNext();
      }

      @Override
      public Row next() {
        // A sales table's generator gives its row first, then the return it may cause.
        List<String> values = generated.next().get(0);
        if (values.size() != width) {
          throw new IllegalStateException(
              table
                  + ": the generator gives "
                  + values.size()
                  + " columns where Spark's schema has "
                  + width);
        }
        List<Object> row = new ArrayList<>(width);
        for (int i = 0; i < width; i++) {
          row.add(parse(values.get(i), fields[i].dataType()));
        }
        return RowFactory.create(row.toArray());
      }
    };
  }

  private static Object parse(String value, DataType type) {
    if (value == null) {
      return null;
    }
    if (type.equals(DataTypes.IntegerType)) {
      return Integer.parseInt(value);
    }
    if (type.equals(DataTypes.LongType)) {
      return Long.parseLong(value);
    }
    if (type instanceof DecimalType) {
      return new BigDecimal(value);
    }
    if (type.equals(DataTypes.DateType)) {
      return Date.valueOf(value);
    }
    if (type.equals(DataTypes.StringType)) {
      return value;
    }
    throw new IllegalStateException("no TPC-DS column has type " + type);
  }
}
