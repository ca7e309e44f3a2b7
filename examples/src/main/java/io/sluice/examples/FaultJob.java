package io.sluice.examples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkEnv;
import org.apache.spark.Success$;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/**
 * A job that holds one task still at a chosen point so that a test can break something under it (a
 * shuffle server, an executor) at a known moment, on any Spark line. It prints the answer it got
 * beside the answer it computed itself, and Spark's own view of the run ({@link JobCounts}).
 *
 * <p>Usage: {@code FaultJob <dir> <stages>}, {@code <stages>} one of {@code map}, {@code reduce} or
 * {@code map,reduce}. The job and the test coordinate through files in {@code dir} (they share a
 * machine; the job cannot call the test):
 *
 * <ul>
 *   <li>{@code map}: map task 0 pushes half its records, writes {@code dir/map.held} and waits for
 *       {@code dir/map.go}; the driver writes {@code dir/others-done} once every other map task has
 *       finished. Between the two, the finished maps' output is on the servers and map 0 is
 *       half-way through its pushes.
 *   <li>{@code reduce}: reduce task 0 reads its first record, writes {@code dir/reduce.held}
 *       (holding its JVM's process id and its executor's id: {@code <pid> <executor>}) and waits
 *       for {@code dir/reduce.go}.
 * </ul>
 *
 * <p>With both, the map stage holds first and the reduce stage after it, so that a test can break
 * something mid-map and mend it mid-reduce.
 *
 * <p>Only the first attempt of the held task in the stage's first attempt holds, at most {@link
 * #HOLD_MILLIS}; retries and re-runs go straight through.
 *
 * <p>The job: {@value #MAPS} map tasks of {@value #RECORDS_PER_MAP} records each, hash-partitioned
 * into {@value #REDUCES} reduce partitions, each reduced to its record count and the sums of its
 * keys and values (collected on the reduce side, so every shuffled record counts).
 */
public final class FaultJob {
  static final int MAPS = 8;
  static final int REDUCES = 8;
  static final int RECORDS_PER_MAP = 40_000;
  private static final long HOLD_MILLIS = TimeUnit.MINUTES.toMillis(2);

  private FaultJob() {}

  public static void main(String[] args) throws IOException {
    List<String> stages = args.length == 2 ? List.of(args[1].split(",")) : List.of();
    if (stages.isEmpty() || !List.of("map", "reduce").containsAll(stages)) {
      throw new IllegalArgumentException("usage: FaultJob <dir> map|reduce|map,reduce");
    }
    String dir = args[0];
    boolean holdMap = stages.contains("map");
    boolean holdReduce = stages.contains("reduce");
    SparkSession spark = SparkSession.builder().appName("sluice-fault-job").getOrCreate();
    JobCounts counts = new JobCounts();
    spark.sparkContext().addSparkListener(counts);
    if (holdMap) {
      spark.sparkContext().addSparkListener(new OthersDone(Paths.get(dir)));
    }
    String answer;
    String manager;
    try {
      answer =
          describe(
              run(
                  JavaSparkContext.fromSparkContext(spark.sparkContext()),
                  dir,
                  holdMap,
                  holdReduce));
      manager =
          "Shuffle manager: "
              + spark.conf().get("spark.shuffle.manager", "sort")
              + ", Spark "
              + spark.version();
    } finally {
      spark.stop();
    }
    System.out.println("Answer: " + answer);
    System.out.println("Expected: " + describe(expected()));
    System.out.println(counts.summary());
    System.out.println(counts.stageSubmissions());
    System.out.println(counts.tasksStarted());
    System.out.println(counts.successesByExecutor(0));
    counts.failures().forEach(f -> System.out.println("Task failure: " + f));
    System.out.println(manager);
  }

  private static List<long[]> run(
      JavaSparkContext sc, String dir, boolean holdMap, boolean holdReduce) {
    List<Integer> maps = new ArrayList<>();
    for (int i = 0; i < MAPS; i++) {
      maps.add(i);
    }
    List<Tuple2<Integer, long[]>> sums =
        new ArrayList<>(
            sc.parallelize(maps, MAPS)
                .mapPartitionsToPair(
                    it -> {
                      int map = it.next();
                      // Records are made as the writer consumes them, so that a held map has pushed
                      // half of its output before it waits and pushes the rest after.
                      return new Iterator<Tuple2<Long, Long>>() {
                        private int i;

                        @Override
                        public boolean hasNext() {
                          return i < RECORDS_PER_MAP;
                        }

                        @Override
                        public Tuple2<Long, Long> next() {
                          if (holdMap && map == 0 && i == RECORDS_PER_MAP / 2) {
                            hold(dir, "map");
                          }
                          return record(map, i++);
                        }
                      };
                    })
                .partitionBy(new HashPartitioner(REDUCES))
                .mapPartitionsWithIndex(
                    (index, it) -> {
                      long[] partition = new long[3];
                      while (it.hasNext()) {
                        Tuple2<Long, Long> r = it.next();
                        if (holdReduce && index == 0 && partition[0] == 0) {
                          hold(dir, "reduce");
                        }
                        partition[0]++;
                        partition[1] += r._1();
                        partition[2] += r._2();
                      }
                      return List.of(new Tuple2<>(index, partition)).iterator();
                    },
                    true)
                .collect());
    sums.sort((a, b) -> Integer.compare(a._1(), b._1()));
    List<long[]> result = new ArrayList<>();
    sums.forEach(t -> result.add(t._2()));
    return result;
  }

  /** Record {@code i} of map {@code map}: distinct keys spread over every reduce partition. */
  private static Tuple2<Long, Long> record(int map, int i) {
    long key = map * 1_000_003L + i * 7919L;
    return new Tuple2<>(key, key * 31 + map);
  }

  /** What the job must answer, computed here without Spark. */
  private static List<long[]> expected() {
    HashPartitioner partitioner = new HashPartitioner(REDUCES);
    List<long[]> result = new ArrayList<>();
    for (int p = 0; p < REDUCES; p++) {
      result.add(new long[3]);
    }
    for (int map = 0; map < MAPS; map++) {
      for (int i = 0; i < RECORDS_PER_MAP; i++) {
        Tuple2<Long, Long> r = record(map, i);
        long[] partition = result.get(partitioner.getPartition(r._1()));
        partition[0]++;
        partition[1] += r._1();
        partition[2] += r._2();
      }
    }
    return result;
  }

  /** {@code N partitions, M records, crc X}: the crc over every partition's count and sums. */
  private static String describe(List<long[]> partitions) {
    CRC32 crc = new CRC32();
    long records = 0;
    for (long[] p : partitions) {
      records += p[0];
      crc.update((p[0] + " " + p[1] + " " + p[2] + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return String.format(
        "%d partitions, %d records, crc %08x", partitions.size(), records, crc.getValue());
  }

  /**
   * Holds the calling task, if it is the first attempt of its task in its stage's first attempt:
   * writes {@code dir/<stage>.held} with this JVM's process id and the executor's id, then waits
   * for {@code dir/<stage>.go}.
   */
  private static void hold(String dir, String stage) {
    TaskContext task = TaskContext.get();
    if (task.attemptNumber() > 0 || task.stageAttemptNumber() > 0) {
      return;
    }
    Path go = Paths.get(dir, stage + ".go");
    try {
      // Written whole, then renamed: whoever sees the file reads all of it.
      Path held = Paths.get(dir, stage + ".held");
      Path partial =
          Files.writeString(
              Paths.get(dir, stage + ".held.partial"),
              ProcessHandle.current().pid() + " " + SparkEnv.get().executorId());
      Files.move(partial, held, StandardCopyOption.ATOMIC_MOVE);
      long deadline = System.currentTimeMillis() + HOLD_MILLIS;
      while (!Files.exists(go)) {
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("no " + go + " after " + HOLD_MILLIS + " ms");
        }
        Thread.sleep(20);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Writes {@code dir/others-done} once every map task but map 0 has finished (stage 0). */
  private static final class OthersDone extends SparkListener {
    private final Path dir;
    private int succeeded;

    OthersDone(Path dir) {
      this.dir = dir;
    }

    @Override
    public synchronized void onTaskEnd(SparkListenerTaskEnd end) {
      if (end.stageId() == 0
          && end.stageAttemptId() == 0
          && end.reason() instanceof Success$
          && end.taskInfo().index() != 0
          && ++succeeded == MAPS - 1) {
        try {
          Files.writeString(dir.resolve("others-done"), "");
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }
}
