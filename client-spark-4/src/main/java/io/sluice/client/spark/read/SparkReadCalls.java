package io.sluice.client.spark.read;

import io.sluice.client.spark.SparkCompat;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
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
 * The reader's calls into Spark whose signatures differ between Spark lines (this copy: Spark 4.x,
 * Scala 2.13, checked with javap against spark-core_2.13 4.0.1, 4.1.1 and 4.2.0): the sorter. Spark
 * 4.1 added a sixth parameter to its constructor (row-based checksums, none when reading), which is
 * bound once, by name, when this class loads.
 */
final class SparkReadCalls {
  private SparkReadCalls() {}

  /** Spark's external sort by key, with its spill and peak-memory metrics and clean-up. */
  @SuppressWarnings("unchecked")
  static <K, C> Iterator<Product2<K, C>> sortByKey(
      TaskContext context,
      Ordering<K> ordering,
      Serializer serializer,
      Iterator<Product2<K, C>> records) {
    Option<Aggregator<K, C, C>> noAggregator = Option.empty();
    Option<Partitioner> noPartitioner = Option.empty();
    ExternalSorter<K, C, C> sorter;
    if (SORTER_WITH_CHECKSUMS == null) {
      sorter =
          new ExternalSorter<>(
              context, noAggregator, noPartitioner, Option.apply(ordering), serializer);
    } else {
      try {
        sorter =
            (ExternalSorter<K, C, C>)
                (ExternalSorter<?, ?, ?>)
                    SORTER_WITH_CHECKSUMS.invokeExact(
                        context,
                        (Option<?>) noAggregator,
                        (Option<?>) noPartitioner,
                        (Option<?>) Option.apply(ordering),
                        serializer);
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable t) {
        throw new IllegalStateException(t);
      }
    }
    return sorter.insertAllAndUpdateMetrics(records);
  }

  /**
   * Spark 4.1's sorter constructor with its checksums argument bound to an empty array, typed
   * (TaskContext, Option, Option, Option, Serializer) -> ExternalSorter; null on Spark 4.0.
   */
  private static final MethodHandle SORTER_WITH_CHECKSUMS = bindSorter();

  private static MethodHandle bindSorter() {
    Class<?> checksum = SparkCompat.rowBasedChecksumClass();
    if (checksum == null) {
      return null;
    }
    try {
      MethodHandle constructor =
          MethodHandles.publicLookup()
              .findConstructor(
                  ExternalSorter.class,
                  MethodType.methodType(
                      void.class,
                      TaskContext.class,
                      Option.class,
                      Option.class,
                      Option.class,
                      Serializer.class,
                      checksum.arrayType()));
      return MethodHandles.insertArguments(constructor, 5, Array.newInstance(checksum, 0))
          .asType(
              MethodType.methodType(
                  ExternalSorter.class,
                  TaskContext.class,
                  Option.class,
                  Option.class,
                  Option.class,
                  Serializer.class));
    } catch (NoSuchMethodException | IllegalAccessException e) {
      throw new IllegalStateException(
          "this Spark has row-based shuffle checksums but not the "
              + "sorter Sluice's Spark 4 client was built for: "
              + e,
          e);
    }
  }
}
