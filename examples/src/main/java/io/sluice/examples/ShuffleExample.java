package io.sluice.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/**
 * The example job of the README: shuffles {@code records} (default 2,000,000) key/value pairs with
 * a 100-byte value, sums per key, and prints the result's size and checksum together with the
 * shuffle bytes Spark's task metrics report. Usage: {@code ShuffleExample [records] [keys]}.
 */
public final class ShuffleExample {
  private ShuffleExample() {}

  public static void main(String[] args) {
    long records = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000L;
    int keys = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
    SparkSession spark = SparkSession.builder().appName("sluice-example").getOrCreate();
    AtomicLong shuffleWritten = new AtomicLong();
    AtomicLong shuffleRead = new AtomicLong();
    spark
        .sparkContext()
        .addSparkListener(
            new SparkListener() {
              @Override
              public void onTaskEnd(SparkListenerTaskEnd end) {
                if (end.taskMetrics() != null) {
                  shuffleWritten.addAndGet(end.taskMetrics().shuffleWriteMetrics().bytesWritten());
                  shuffleRead.addAndGet(end.taskMetrics().shuffleReadMetrics().totalBytesRead());
                }
              }
            });
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    int slices = 8;
    List<Integer> seeds = new ArrayList<>();
    for (int i = 0; i < slices; i++) {
      seeds.add(i);
    }
    long perSlice = records / slices;
    long start = System.nanoTime();
    JavaPairRDD<Integer, Long> pairs =
        sc.parallelize(seeds, slices)
            .flatMapToPair(
                seed -> {
                  return new java.util.Iterator<Tuple2<Integer, Long>>() {
                    long i;

                    @Override
                    public boolean hasNext() {
                      return i < perSlice;
                    }

                    @Override
                    public Tuple2<Integer, Long> next() {
                      long v = seed * perSlice + i++;
                      return new Tuple2<>((int) Math.floorMod(v * 2654435761L, (long) keys), v);
                    }
                  };
                });
    List<Tuple2<Integer, Long>> sums =
        pairs
            .mapValues(v -> new Payload(v))
            .reduceByKey(Payload::plus, slices)
            .mapValues(p -> p.sum)
            .collect();
    long checksum = 0;
    for (Tuple2<Integer, Long> t : sums) {
      checksum += t._1() * 31L + t._2();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        "Result: %d keys, checksum %d, in %.1f s on Spark %s%n",
        sums.size(), checksum, seconds, spark.version());
    System.out.printf(
        "Shuffle: %d bytes written, %d bytes read (shuffle manager %s)%n",
        shuffleWritten.get(), shuffleRead.get(), spark.conf().get("spark.shuffle.manager", "sort"));
    spark.stop();
  }

  /** A value with a 100-byte body, as wide rows in real shuffles are. */
  static final class Payload implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    final long sum;
    final byte[] body;

    Payload(long v) {
      this.sum = v;
      this.body = new byte[100];
      for (int i = 0; i < body.length; i++) {
        body[i] = (byte) (v >>> (i % 8));
      }
    }

    Payload(long sum, byte[] body) {
      this.sum = sum;
      this.body = body;
    }

    Payload plus(Payload other) {
      return new Payload(sum + other.sum, body);
    }
  }
}
