package io.sluice.benchmark.tpc;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.LongFunction;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;

/** Records made inside map tasks: record {@code j} of {@code total} is a function of {@code j}. */
final class RddSource {
  private RddSource() {}

  /** Serializable record maker. */
  interface Maker<T> extends LongFunction<T>, java.io.Serializable {}

  static <T> JavaRDD<T> generate(QueryInputs in, long total, Maker<T> maker) {
    int partitions = in.rddPartitions();
    List<Integer> ids = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      ids.add(p);
    }
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(in.spark().sparkContext());
    return sc.parallelize(ids, partitions)
        .mapPartitions(
            it -> {
              int p = it.next();
              long from = total * p / partitions;
              long to = total * (p + 1) / partitions;
              return new Iterator<T>() {
                long j = from;

                @Override
                public boolean hasNext() {
                  return j < to;
                }

                @Override
                public T next() {
                  if (j >= to) {
                    throw new NoSuchElementException();
                  }
                  return maker.apply(j++);
                }
              };
            });
  }
}
