package io.sluice.benchmark.tpc;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.benchmark.Flags;
import io.sluice.benchmark.SparkExecutors;
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
 * The Spark application of the TPC benchmark, submitted once per round and mode by {@code
 * TpcBenchmark} (the harness, in src/main/java). With {@code --generate} it writes the tables;
 * otherwise it runs the queries one after the other and appends one JSON line per query to the
 * events file: wall time, answer, and the task metrics of its stages. {@code --tpcds} picks the
 * TPC-DS suite ({@link Suite}): its tables, and the query texts of Spark's own test jar; {@code
 * --rdd} the plain RDD shuffle (the partitionby query on 16 tasks, no tables).
 *
 * <p>This source root (src/tpc-job/java) is compiled twice: by this module for Spark 3.5 and by
 * examples-spark-4 for Spark 4 (Scala 2.13), so it uses nothing but Spark, Jackson (Spark's own)
 * and the JDK.
 */
public final class TpcJob {
  private static final Flags FLAGS =
      new Flags("Usage: TpcJob [flags]")
          .option("data", "DIR|URI", "where the tables are")
          .option("scale", "SF", "the scale factor")
          .toggle("tpcds", "the TPC-DS suite")
          .toggle("rdd", "the plain RDD shuffle")
          .option("seed", "N", "1", "data generator seed")
          .toggle("generate", "write the tables (those already complete are kept)")
          .option("queries", "LIST", "all", "aggregate,join,... or q1,q14a,...")
          .option("events", "FILE", "where each query's JSON line is appended")
          .option("rdd-partitions", "N", "partitions of the TPC queries' RDD inputs");

  /** How {@code --generate} names the complete tables and their size, for the harness. */
  static final String TABLES_LINE = "Tables complete at ";

  private TpcJob() {}

  public static void main(String[] args) throws Exception {
    Flags.Values opts = FLAGS.parseOrExit(args);
    Suite suite = opts.given("tpcds") ? Suite.TPCDS : opts.given("rdd") ? Suite.RDD : Suite.TPC;
    double scale = opts.as("scale", ScaleFactor::parse);
    long seed = opts.as("seed", Long::parseLong);
    DataLocation tables =
        suite.tables(DataLocation.parse(opts.required("data"), Path.of("")), scale, seed);

    SparkSession spark =
        SparkSession.builder()
            .appName("sluice-" + suite.label())
            .config("spark.sql.datetime.java8API.enabled", suite == Suite.TPC)
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    try {
      HadoopFiles files = new HadoopFiles(spark);
      if (opts.given("generate")) {
        // The harness cannot see a cluster's storage: it asks for tables every time, and those
        // already complete are kept.
        if (!suite.complete(tables, files::exists)) {
          long start = System.nanoTime();
          if (suite == Suite.TPC) {
            int generatorPartitions = TableLayout.generatorPartitions(scale);
            TpchTables.write(
                spark,
                tables,
                new TpchGenerator(scale, seed, generatorPartitions),
                generatorPartitions);
          } else if (suite == Suite.TPCDS) {
            TpcdsTables.write(spark, tables, scale);
          }
          System.out.printf(
              "Generated SF %s in %s in %.1f s%n",
              ScaleFactor.format(scale), tables, (System.nanoTime() - start) / 1e9);
        }
        if (suite != Suite.RDD) {
          System.out.println(TABLES_LINE + tables + ": " + files.bytes(tables) + " bytes");
        }
        return;
      }
      if (!suite.complete(tables, files::exists)) {
        throw new IllegalStateException("no complete tables in " + tables + "; run --generate");
      }
      SparkExecutors.awaitAll(spark);
      String names = opts.text("queries");
      List<JobQuery> queries =
          switch (suite) {
            case TPC ->
                tpcQueries(
                    spark,
                    tables,
                    scale,
                    seed,
                    names,
                    opts.given("rdd-partitions")
                        ? opts.positive("rdd-partitions")
                        : defaultRddPartitions(scale));
            case RDD ->
                tpcQueries(
                    spark,
                    tables,
                    scale,
                    seed,
                    QuerySpec.PARTITION_BY.label(),
                    Suite.RDD_PARTITIONS);
            case TPCDS -> tpcdsQueries(spark, tables, names);
          };
      boolean failed = runAll(spark, queries, Path.of(opts.required("events")));
      if (failed) {
        System.exit(2);
      }
    } finally {
      spark.stop();
    }
  }

  private static List<JobQuery> tpcQueries(
      SparkSession spark,
      DataLocation tables,
      double scale,
      long seed,
      String names,
      int rddPartitions) {
    TpchGenerator generator =
        new TpchGenerator(scale, seed, TableLayout.generatorPartitions(scale));
    QueryInputs in = new QueryInputs(spark, tables, generator, scale, seed, rddPartitions);
    return TpcQueries.select(names).stream()
        .map(q -> new JobQuery(q.spec().label(), q.spec().description(), () -> q.run(in)))
        .toList();
  }

  /**
   * Each query collects its rows (most end in a LIMIT 100), checksummed in the driver. A query
   * whose data divides by zero under ANSI mode (Spark 4's default; q90 at small scales) fails in
   * every mode alike: that error is its answer, compared like rows, and does not fail the run.
   */
  private static List<JobQuery> tpcdsQueries(SparkSession spark, DataLocation tables, String names)
      throws IOException {
    TpcdsTables.register(spark, tables);
    List<JobQuery> queries = new ArrayList<>();
    TpcdsQueryTexts.select(names)
        .forEach(
            (name, text) ->
                queries.add(
                    new JobQuery(
                        name,
                        "TPC-DS " + name,
                        () -> {
                          try {
                            return Checksums.ofRows(spark.sql(text).collectAsList(), "");
                          } catch (ArithmeticException e) {
                            String error =
                                e.getClass().getName()
                                    + ": "
                                    + String.valueOf(e.getMessage()).lines().findFirst().orElse("");
                            return new QueryOutcome(
                                -1, Checksums.term(error.hashCode()), "failed alike: " + error);
                          }
                        })));
    return queries;
  }

  /** Map and reduce tasks of the RDD queries: 16 per scale factor, at least 4. */
  static int defaultRddPartitions(double scale) {
    return (int) Math.max(4, Math.round(scale * 16));
  }

  private static boolean runAll(SparkSession spark, List<JobQuery> queries, Path events)
      throws IOException {
    SparkContext sc = spark.sparkContext();
    QueryMetricsListener listener = new QueryMetricsListener();
    sc.addSparkListener(listener);
    ObjectMapper json = new ObjectMapper();
    boolean failed = false;
    Files.createDirectories(events.toAbsolutePath().getParent());
    try (Writer out =
        Files.newBufferedWriter(
            events, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
      for (JobQuery q : queries) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("query", q.label());
        sc.setLocalProperty(QueryMetricsListener.QUERY_PROPERTY, q.label());
        sc.setJobGroup(q.label(), q.description(), false);
        long gcBefore = gcMillis();
        long cpuBefore = cpuNanos();
        JvmThreadCpu threadsBefore = JvmThreadCpu.take();
        long startMs = System.currentTimeMillis();
        long start = System.nanoTime();
        try {
          QueryOutcome outcome = q.run().call();
          line.put("wallMs", (System.nanoTime() - start) / 1_000_000);
          line.put("rows", outcome.rows());
          line.put("checksum", Long.toHexString(outcome.checksum()));
          line.put("note", outcome.note());
          System.out.printf(
              "Query %s: %s in %.1f s%s%n",
              q.label(),
              outcome.answer(),
              (System.nanoTime() - start) / 1e9,
              outcome.note().isEmpty() ? "" : " (" + outcome.note() + ")");
        } catch (Exception e) {
          failed = true;
          line.put("wallMs", (System.nanoTime() - start) / 1_000_000);
          line.put("error", stackTrace(e));
          System.out.printf("Query %s FAILED: %s%n", q.label(), e);
        }
        line.put("startMs", startMs);
        line.put("endMs", System.currentTimeMillis());
        line.put("jvmGcMs", gcMillis() - gcBefore);
        long jvmCpuMs = (cpuNanos() - cpuBefore) / 1_000_000;
        line.put("jvmCpuMs", jvmCpuMs);
        line.put("jvmThreadCpuMs", JvmThreadCpu.take().millisSince(threadsBefore, jvmCpuMs));
        drain(sc);
        List<Map<String, Object>> stages = new ArrayList<>();
        listener.take(q.label()).forEach(s -> stages.add(s.toMap()));
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
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static String stackTrace(Throwable t) {
    StringWriter sw = new StringWriter();
    t.printStackTrace(new PrintWriter(sw));
    String s = sw.toString();
    return s.length() > 4000 ? s.substring(0, 4000) : s;
  }
}
