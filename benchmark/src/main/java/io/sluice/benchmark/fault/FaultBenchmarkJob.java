package io.sluice.benchmark.fault;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.benchmark.Flags;
import io.sluice.benchmark.SparkExecutors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.HashPartitioner;
import org.apache.spark.Success$;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/**
 * The Spark application of the fault benchmark, submitted once per run by {@link FaultBenchmark}:
 * one shuffle of {@code maps x records} records of a long key and a 92-byte value into {@code
 * reduces} partitions, whose reduce side sums every record, so that each shuffled byte counts in
 * the answer. With {@code --kill-pid}, the process is sent SIGKILL ({@code map}, {@code reduce}) or
 * SIGSTOP ({@code freeze-map}, {@code freeze-reduce}: frozen, its sockets open, until the benchmark
 * ends it after the run); with {@code --cut-host}, that host of a network test bed is cut off
 * ({@code cut-map}, {@code cut-reduce}: {@code bin/netbed.sh cut}, every packet dropped, until the
 * benchmark heals it after the run). Either comes from Spark's listener at the chosen moment: after
 * a quarter of the map tasks ended, or after the first reduce task ended. A {@code slow} run is
 * undisturbed here: the benchmark capped the victim's link before it. Appends one JSON line to
 * {@code --result}: wall time, the JVM's CPU time, stage submissions, failed tasks and the answer.
 */
public final class FaultBenchmarkJob {
  private static final Flags FLAGS =
      new Flags("Usage: FaultBenchmarkJob [flags]")
          .option(
              "scenario",
              "CASE",
              "none",
              "none, map, reduce, freeze-map, freeze-reduce, cut-map, cut-reduce or slow")
          .option("maps", "N", "map tasks")
          .option("reduces", "N", "reduce partitions")
          .option("records", "N", "records per map task")
          .option("result", "FILE", "where the run's JSON line is appended")
          .option("kill-pid", "PID", "the server to kill or freeze")
          .option("netbed", "SCRIPT", "bin/netbed.sh, to cut a host")
          .option("bed", "NAME", "the test bed of the host to cut")
          .option("cut-host", "HOST", "the host to cut");
  private static final int VALUE_BYTES = 92;

  private FaultBenchmarkJob() {}

  public static void main(String[] args) throws Exception {
    Flags.Values o = FLAGS.parseOrExit(args);
    Scenario scenario = o.as("scenario", Scenario::parse);
    int maps = o.positive("maps");
    int reduces = o.positive("reduces");
    long records = o.positiveLong("records");
    Runnable fault = fault(scenario, o);

    SparkSession spark =
        SparkSession.builder().appName("sluice-fault-" + scenario.label()).getOrCreate();
    spark
        .sparkContext()
        .setLogLevel(System.getenv().getOrDefault("SLUICE_BENCH_LOG_LEVEL", "WARN"));
    Observer observer = new Observer(scenario, maps, fault);
    spark.sparkContext().addSparkListener(observer);
    SparkExecutors.awaitAll(spark);
    long cpuBefore = processCpuNanos();
    long start = System.nanoTime();
    List<Tuple2<Integer, long[]>> answer;
    try {
      answer = run(JavaSparkContext.fromSparkContext(spark.sparkContext()), maps, reduces, records);
    } finally {
      spark.stop();
    }
    long wallMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    long cpuMs = TimeUnit.NANOSECONDS.toMillis(processCpuNanos() - cpuBefore);

    Map<String, Object> line = new LinkedHashMap<>();
    line.put("scenario", scenario.label());
    line.put("wallMs", wallMs);
    line.put("cpuMs", cpuMs);
    line.put("taskCpuMs", TimeUnit.NANOSECONDS.toMillis(observer.taskCpuNanos.get()));
    line.put("killed", observer.killedAtNanos.get() > 0 && observer.strikeError.get() == null);
    if (observer.strikeError.get() != null) {
      line.put("strikeError", observer.strikeError.get());
    }
    line.put(
        "killedAtNanos",
        observer.killedAtNanos.get() > 0
            ? TimeUnit.NANOSECONDS.toMillis(observer.killedAtNanos.get() - start)
            : -1);
    line.put("stageSubmissions", observer.submissions);
    line.put("failedTasks", observer.failedTasks.get());
    line.put("fetchFailures", observer.fetchFailures.get());
    List<List<Long>> sums = new ArrayList<>();
    for (Tuple2<Integer, long[]> r : answer) {
      sums.add(List.of((long) r._1(), r._2()[0], r._2()[1], r._2()[2]));
    }
    line.put("answer", sums);
    Files.writeString(
        Path.of(o.required("result")),
        new ObjectMapper().writeValueAsString(line) + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    System.out.println(
        "Fault run "
            + scenario.label()
            + ": "
            + wallMs
            + " ms, stage submissions "
            + observer.submissions
            + ", failed tasks "
            + observer.failedTasks.get());
  }

  /** Per reduce partition: its index, record count, sum of keys and sum of value checksums. */
  private static List<Tuple2<Integer, long[]>> run(
      JavaSparkContext sc, int maps, int reduces, long records) {
    List<Integer> mapIds = new ArrayList<>();
    for (int i = 0; i < maps; i++) {
      mapIds.add(i);
    }
    List<Tuple2<Integer, long[]>> result =
        new ArrayList<>(
            sc.parallelize(mapIds, maps)
                .mapPartitionsToPair(
                    it -> {
                      int map = it.next();
                      return new java.util.Iterator<Tuple2<Long, byte[]>>() {
                        private long i;

                        @Override
                        public boolean hasNext() {
                          return i < records;
                        }

                        @Override
                        public Tuple2<Long, byte[]> next() {
                          long key = map * 1_000_000_007L + (i++) * 7919;
                          byte[] value = new byte[VALUE_BYTES];
                          long x = key * 0x9E3779B97F4A7C15L;
                          for (int b = 0; b < VALUE_BYTES; b++) {
                            x ^= x << 13;
                            x ^= x >>> 7;
                            x ^= x << 17;
                            value[b] = (byte) x;
                          }
                          return new Tuple2<>(key, value);
                        }
                      };
                    })
                .partitionBy(new HashPartitioner(reduces))
                .mapPartitionsWithIndex(
                    (index, it) -> {
                      long[] sums = new long[3];
                      while (it.hasNext()) {
                        Tuple2<Long, byte[]> r = it.next();
                        sums[0]++;
                        sums[1] += r._1();
                        long h = 0;
                        for (byte b : r._2()) {
                          h = h * 31 + b;
                        }
                        sums[2] += h;
                      }
                      return List.of(new Tuple2<>(index, sums)).iterator();
                    },
                    true)
                .collect());
    result.sort((a, b) -> Integer.compare(a._1(), b._1()));
    return result;
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** When to kill or freeze the server. */
  public enum Scenario {
    NONE,
    MAP,
    REDUCE,
    FREEZE_MAP,
    FREEZE_REDUCE,
    CUT_MAP,
    CUT_REDUCE,
    SLOW;

    String label() {
      return name().toLowerCase().replace('_', '-');
    }

    /** Whether the fault comes during the map stage. */
    boolean midMap() {
      return this == MAP || this == FREEZE_MAP || this == CUT_MAP;
    }

    /** Whether the fault comes at a moment of the job (the others: none, or the whole run). */
    boolean hasMoment() {
      return this != NONE && this != SLOW;
    }

    /** Whether the server is frozen (SIGSTOP) rather than killed. */
    boolean freezes() {
      return this == FREEZE_MAP || this == FREEZE_REDUCE;
    }

    /** Whether the server's link is cut rather than its process signalled. */
    boolean cuts() {
      return this == CUT_MAP || this == CUT_REDUCE;
    }

    /** Whether the case needs the servers on a network test bed. */
    public boolean needsBed() {
      return cuts() || this == SLOW;
    }

    static Scenario parse(String s) {
      return valueOf(s.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
    }
  }

  /** What to do to the victim at the scenario's moment, or null for nothing. */
  private static Runnable fault(Scenario scenario, Flags.Values o) {
    if (!scenario.hasMoment()) {
      return null;
    }
    if (scenario.cuts()) {
      List<String> cut =
          List.of(o.required("netbed"), "cut", o.required("bed"), o.required("cut-host"));
      return () -> run(cut);
    }
    long pid = o.positiveLong("kill-pid");
    if (scenario.freezes()) {
      return () -> run(List.of("kill", "-STOP", Long.toString(pid)));
    }
    // SIGKILL, as a crash: the server gets no chance to drain or say goodbye.
    return () ->
        ProcessHandle.of(pid)
            .ifPresent(
                p -> {
                  p.destroyForcibly();
                  p.onExit().join();
                });
  }

  /**
   * Runs a command to its end: {@code kill -STOP} (SIGSTOP, as a long pause or a hung disk: the
   * process holds its sockets and answers nothing) or the bed's cut (the host's packets dropped, as
   * by a failed switch port: nobody gets a reset).
   */
  private static void run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).inheritIO().start();
      if (p.waitFor() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Counts stage submissions and failed tasks, and strikes the victim at the scenario's moment. */
  private static final class Observer extends SparkListener {
    private final Scenario scenario;
    private final int maps;
    private final Runnable fault;
    final Map<Integer, Integer> submissions = new ConcurrentHashMap<>();
    final AtomicInteger failedTasks = new AtomicInteger();
    final AtomicInteger fetchFailures = new AtomicInteger();
    final AtomicLong killedAtNanos = new AtomicLong();

    /** Why the strike at the scenario's moment failed, or null. */
    final AtomicReference<String> strikeError = new AtomicReference<>();

    /** CPU time of every task, wherever it ran (in executors of their own on a cluster). */
    final AtomicLong taskCpuNanos = new AtomicLong();

    private final AtomicInteger mapTasksEnded = new AtomicInteger();

    /** The first stage submitted is the map stage: the job's only shuffle map stage. */
    private volatile int mapStage = -1;

    Observer(Scenario scenario, int maps, Runnable fault) {
      this.scenario = scenario;
      this.maps = maps;
      this.fault = fault;
    }

    @Override
    public void onStageSubmitted(SparkListenerStageSubmitted event) {
      int stage = event.stageInfo().stageId();
      if (mapStage < 0) {
        mapStage = stage;
      }
      submissions.merge(stage, 1, Integer::sum);
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd event) {
      if (event.taskMetrics() != null) {
        taskCpuNanos.addAndGet(event.taskMetrics().executorCpuTime());
      }
      boolean success = event.reason() == Success$.MODULE$;
      if (!success) {
        failedTasks.incrementAndGet();
        if (event.reason().toString().startsWith("FetchFailed")) {
          fetchFailures.incrementAndGet();
        }
      }
      if (fault == null || killedAtNanos.get() > 0 || !success) {
        return;
      }
      boolean mapTask = event.stageId() == mapStage;
      boolean now =
          scenario.midMap() && mapTask && mapTasksEnded.incrementAndGet() == Math.max(1, maps / 4)
              || !scenario.midMap() && !mapTask;
      if (now && killedAtNanos.compareAndSet(0, System.nanoTime())) {
        try {
          fault.run();
        } catch (RuntimeException e) {
          // Spark's listener bus would only log it: the run must not count as struck.
          strikeError.set(e.toString());
          System.err.println("Could not strike the victim: " + e);
        }
      }
    }
  }
}
