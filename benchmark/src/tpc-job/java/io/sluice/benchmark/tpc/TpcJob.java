package io.sluice.benchmark.tpc;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.benchmark.Flags;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark application of the TPC benchmark, submitted once per round and mode by
 * {@code TpcBenchmark} (the harness, in src/main/java). With {@code --generate} it writes the
 * tables; otherwise it runs the queries one after the other and appends one JSON line per query to
 * the events file: wall time, answer, and the task metrics of its stages.
 *
 * <p>This source root (src/tpc-job/java) is compiled twice: by this module for Spark 3.5 and by
 * examples-spark-4 for Spark 4 (Scala 2.13), so it uses nothing but Spark, Jackson (Spark's own)
 * and the JDK.
 */
public final class TpcJob {
  private static final String USAGE = "Usage: TpcJob --data DIR --scale SF [--seed N] [--generate]"
      + " [--queries aggregate,join,...] [--events FILE] [--rdd-partitions N]";

  private TpcJob() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new LinkedHashMap<>();
    boolean generate = false;
    Flags flags = new Flags(args, USAGE);
    while (flags.hasNext()) {
      String flag = flags.next();
      if (flag.equals("--generate")) {
        generate = true;
      } else {
        flags.named(flag, List.of("data", "scale", "seed", "queries", "events", "rdd-partitions"),
            opts);
      }
    }
    double scale = ScaleFactor.parse(required(opts, "scale"));
    long seed = Long.parseLong(opts.getOrDefault("seed", "1"));
    Path tables = TableLayout.directory(Path.of(required(opts, "data")), scale, seed);
    int generatorPartitions = TableLayout.generatorPartitions(scale);
    TpchGenerator generator = new TpchGenerator(scale, seed, generatorPartitions);

    SparkSession spark = SparkSession.builder().appName("sluice-tpc")
        .config("spark.sql.datetime.java8API.enabled", "true").getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    try {
      if (generate) {
        long start = System.nanoTime();
        TpchTables.write(spark, tables, generator, generatorPartitions);
        System.out.printf("Generated SF %s in %s in %.1f s%n", ScaleFactor.format(scale), tables,
            (System.nanoTime() - start) / 1e9);
        return;
      }
      if (!TableLayout.complete(tables)) {
        throw new IllegalStateException("no complete tables in " + tables + "; run --generate");
      }
      int rddPartitions = Integer.parseInt(opts.getOrDefault("rdd-partitions",
          String.valueOf(defaultRddPartitions(scale))));
      QueryInputs in = new QueryInputs(spark, tables, generator, scale, seed, rddPartitions);
      List<TpcQuery> queries = TpcQueries.select(opts.getOrDefault("queries", "all"));
      Path events = Path.of(required(opts, "events"));
      boolean failed = runAll(spark, in, queries, events);
      if (failed) {
        System.exit(2);
      }
    } finally {
      spark.stop();
    }
  }

  /** Map and reduce tasks of the RDD queries: 16 per scale factor, at least 4. */
  static int defaultRddPartitions(double scale) {
    return (int) Math.max(4, Math.round(scale * 16));
  }

  private static boolean runAll(SparkSession spark, QueryInputs in, List<TpcQuery> queries,
      Path events) throws IOException {
    SparkContext sc = spark.sparkContext();
    QueryMetricsListener listener = new QueryMetricsListener();
    sc.addSparkListener(listener);
    ObjectMapper json = new ObjectMapper();
    boolean failed = false;
    Files.createDirectories(events.toAbsolutePath().getParent());
    try (Writer out = Files.newBufferedWriter(events, StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
      for (TpcQuery q : queries) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("query", q.spec().label());
        sc.setLocalProperty(QueryMetricsListener.QUERY_PROPERTY, q.spec().label());
        sc.setJobGroup(q.spec().label(), q.spec().description(), false);
        long gcBefore = gcMillis();
        long cpuBefore = cpuNanos();
        JvmThreadCpu threadsBefore = JvmThreadCpu.take();
        long startMs = System.currentTimeMillis();
        long start = System.nanoTime();
        try {
          QueryOutcome outcome = q.run(in);
          line.put("wallMs", (System.nanoTime() - start) / 1_000_000);
          line.put("rows", outcome.rows());
          line.put("checksum", Long.toHexString(outcome.checksum()));
          line.put("note", outcome.note());
          System.out.printf("Query %s: %s in %.1f s%s%n", q.spec().label(), outcome.answer(),
              (System.nanoTime() - start) / 1e9,
              outcome.note().isEmpty() ? "" : " (" + outcome.note() + ")");
        } catch (Exception e) {
          failed = true;
          line.put("wallMs", (System.nanoTime() - start) / 1_000_000);
          line.put("error", stackTrace(e));
          System.out.printf("Query %s FAILED: %s%n", q.spec().label(), e);
        }
        line.put("startMs", startMs);
        line.put("endMs", System.currentTimeMillis());
        line.put("jvmGcMs", gcMillis() - gcBefore);
        long jvmCpuMs = (cpuNanos() - cpuBefore) / 1_000_000;
        line.put("jvmCpuMs", jvmCpuMs);
        line.put("jvmThreadCpuMs", JvmThreadCpu.take().millisSince(threadsBefore, jvmCpuMs));
        drain(sc);
        List<Map<String, Object>> stages = new ArrayList<>();
        listener.take(q.spec().label()).forEach(s -> stages.add(s.toMap()));
        line.put("stages", stages);
        sc.clearJobGroup();
        out.write(json.writeValueAsString(line));
        out.write('\n');
        out.flush();
      }
    }
    return failed;
  }

  /** Waits until the listener has seen every event of the query just run. */
  private static void drain(SparkContext sc) {
    try {
      sc.listenerBus().waitUntilEmpty(60_000);
    } catch (TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain in 60 s", e);
    }
  }

  /** Collection time of this JVM (in local mode, the driver and the executor). */
  private static long gcMillis() {
    long total = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      total += Math.max(0, gc.getCollectionTime());
    }
    return total;
  }

  /**
   * CPU time of this whole JVM: in local mode also the driver and the shuffle client's network
   * threads, which task metrics do not count.
   */
  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static String stackTrace(Throwable t) {
    StringWriter sw = new StringWriter();
    t.printStackTrace(new PrintWriter(sw));
    String s = sw.toString();
    return s.length() > 4000 ? s.substring(0, 4000) : s;
  }

  private static String required(Map<String, String> opts, String key) {
    String v = opts.get(key);
    if (v == null) {
      throw new IllegalArgumentException("--" + key + " is required");
    }
    return v;
  }
}
