package io.sluice.client.spark.read;

import org.apache.spark.Aggregator;
import org.apache.spark.Partitioner;
import org.apache.spark.TaskContext;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.util.collection.ExternalSorter;
import scala.Option;
import scala.Product2;
import scala.collection.Iterator;
import scala.math.Ordering;

/**
 * The reader's calls into Spark whose signatures differ between Spark lines (this copy: Spark 3.3,
 * 3.4 and 3.5, Scala 2.12, from {@code client-spark/src/spark-3/java}; Spark 4 has its own): the
 * sorter.
 */
final class SparkReadCalls {
  private SparkReadCalls() {}

  /** Spark's external sort by key, with its spill and peak-memory metrics and clean-up. */
  static <K, C> Iterator<Product2<K, C>> sortByKey(
      TaskContext context,
      Ordering<K> ordering,
      Serializer serializer,
      Iterator<Product2<K, C>> records) {
    ExternalSorter<K, C, C> sorter =
        new ExternalSorter<>(
            context,
            Option.<Aggregator<K, C, C>>empty(),
            Option.<Partitioner>empty(),
            Option.apply(ordering),
            serializer);
    return sorter.insertAllAndUpdateMetrics(records);
  }
}
