package io.sluice.benchmark.tpc;

import io.sluice.benchmark.Flags;
import io.sluice.benchmark.SparkInstall;
import io.sluice.testcluster.ProcessCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The harness's command line, with the defaults of {@code bin/sluice-bench}. */
final class TpcSettings {
  static final Flags FLAGS =
      new Flags("Usage: bin/sluice-bench [flags]")
          .option(
              "spark",
              "3.5|4",
              "3.5",
              "the Spark line; 4 runs Spark 4 (Scala 2.13) with the Spark 4 client and reports"
                  + " into its own section and chart")
          .toggle(
              "tpcds",
              "TPC-DS: every query text of the Spark line's own test jar on dsdgen's data,"
                  + " reported in docs/benchmarks/tpcds.md (Spark 4: tpcds-spark-4.md); without it"
                  + " the TPC-style shuffle queries")
          .toggle(
              "rdd",
              "the plain RDD shuffle: partitionBy(HashPartitioner(16)) of (long, 100 random"
                  + " bytes) records, 5 M per scale factor, 16 map tasks (defaults: --scale 2,"
                  + " --rounds 5; section 'rdd')")
          .option("scale", "SF|smoke", "scale factor (default 1); smoke = 0.01")
          .option("rounds", "N", "rounds of A B (default 2)")
          .option("modes", "a,b", "builtin,sluice", "the shuffles, in each round's order")
          .option("queries", "LIST|all", "all", "the queries (TPC-DS: names such as q1,q14a)")
          .option("seed", "N", "1", "data generator seed")
          .option(
              "master",
              "URL",
              "local[2]",
              "a cluster's (spark://..., yarn, k8s://...) runs the driver here (client mode) and"
                  + " the executors there")
          .option(
              "coordinators",
              "LIST",
              "an existing Sluice deployment's coordinators (host:port,...): the harness starts"
                  + " no servers of its own")
          .option(
              "coordinator-http",
              "HOST:PORT",
              "where that deployment's servers are listed (a coordinator's /status), to read"
                  + " their /metrics (default: the first coordinator's host, port 19996;"
                  + " unreachable: no server figures)")
          .option("driver-memory", "SIZE", "4g", "driver JVM heap")
          .option("executor-memory", "SIZE", "2g", "executors' memory for non-local masters")
          .option(
              "spark-home",
              "DIR",
              "a Spark distribution of the --spark line to run the driver from (default: the one"
                  + " the build assembles, which has YARN support on Spark 3.5 and neither YARN"
                  + " nor Kubernetes on 4)")
          .option("server-buffer", "SIZE", "1g", "each server's buffer.capacity")
          .option("server-read-buffer", "SIZE", "256m", "each server's read.buffer.capacity")
          .option("server-heap", "SIZE", "512m", "each server's heap")
          .option("scrape-ms", "N", "1000", "how often the servers' /metrics are read")
          .option(
              "run-timeout",
              "DURATION",
              "1h",
              "longest a Spark run may take before its threads are dumped and it counts as"
                  + " failed, e.g. 4m or 1h")
          .toggle(
              "no-warmup",
              "no unmeasured sluice run before the rounds (by default one warms the long-lived"
                  + " servers' JIT up, as a day's jobs would)")
          .toggle(
              "profile",
              "a flight recording (settings=profile) of every Spark JVM, kept under --output;"
                  + " the report shows where the slowest query's CPU went in each mode")
          .pairs("conf", "an extra Spark setting for every mode (repeatable)")
          .pairs("sluice-conf", "an extra Spark setting for the sluice mode (repeatable)")
          .pairs("server-conf", "an extra setting of both shuffle servers (repeatable)")
          .option("output", "DIR", "benchmark/target/tpc", "results JSON, logs, events, recordings")
          .option(
              "data",
              "DIR|URI",
              "benchmark/target/tpc-data",
              "generated tables, kept between runs; a URI such as hdfs://nn/tpc or s3a://bucket/tpc"
                  + " for executors on other hosts")
          .option(
              "markdown",
              "FILE|-",
              "section 'tpc' (Spark 4: 'tpc-spark-4'; TPC-DS: 'tpcds', 'tpcds-spark-4'; RDD:"
                  + " 'rdd', 'rdd-spark-4') rewritten (default docs/benchmarks/<section>.md; - for"
                  + " none)")
          .option(
              "chart", "FILE|-", "PNG chart (default docs/benchmarks/<section>.png; - for none)")
          .option("home", "DIR", ".", "the Sluice checkout (set by bin/sluice-bench)")
          .option(
              "command",
              "TEXT",
              "the command line to record in the report (set by bin/sluice-bench)");

  final Path home;
  final Suite suite;

  /** The Spark line: 3.5 or 4. */
  final String spark;

  final double scale;
  final int rounds;
  final List<Mode> modes;
  final String queries;
  final long seed;
  final String master;

  /** An existing deployment's coordinators; null when the harness starts its own servers. */
  final String coordinators;

  /** Where that deployment's servers are listed (host:port of a coordinator's HTTP). */
  final String coordinatorHttp;

  final String driverMemory;
  final String executorMemory;

  /** A Spark installation to run the driver from instead of the build's; null for the build's. */
  final Path sparkHome;

  final ProcessCluster.ServerSizing serverSizing;
  final long scrapeMs;
  final Duration runTimeout;
  final Map<String, String> extraConf;
  final Map<String, String> sluiceConf;

  /** Settings of the shuffle servers beyond the harness's own. */
  final Map<String, String> serverConf;

  final Path output;
  final DataLocation data;
  final Path markdown;
  final Path chart;
  final String command;

  /** Whether every Spark JVM runs a flight recording. */
  final boolean profile;

  /** Whether one unmeasured sluice run warms the servers up before the rounds. */
  final boolean warmUp;

  TpcSettings(Flags.Values o) {
    suite = o.given("tpcds") ? Suite.TPCDS : o.given("rdd") ? Suite.RDD : Suite.TPC;
    profile = o.given("profile");
    warmUp = !o.given("no-warmup");
    home = o.path("home").toAbsolutePath().normalize();
    spark = o.text("spark");
    if (!SparkInstall.LINES.contains(spark)) {
      throw new IllegalArgumentException("--spark is '" + spark + "': give 3.5 or 4");
    }
    scale = ScaleFactor.parse(o.text("scale", suite == Suite.RDD ? "2" : "1"));
    rounds = o.given("rounds") ? o.positive("rounds") : suite == Suite.RDD ? 5 : 2;
    modes = o.list("modes").stream().map(Mode::parse).distinct().toList();
    queries = o.text("queries");
    if (suite == Suite.RDD && !queries.equals("all")) {
      throw new IllegalArgumentException("--rdd runs its one query: leave --queries out");
    } else if (suite == Suite.TPC) {
      QuerySpec.select(queries);
    } else if (suite == Suite.TPCDS && !queries.matches("all|q\\d+[a-z]?(,q\\d+[a-z]?)*")) {
      throw new IllegalArgumentException(
          "--queries is '"
              + queries
              + "': give all or TPC-DS query names separated by commas, e.g. q1,q14a,q72");
    }
    seed = o.as("seed", Long::parseLong);
    master = o.text("master");
    coordinators = o.text("coordinators");
    if (coordinators != null && !coordinators.matches("[^,:\\s]+:\\d+(,[^,:\\s]+:\\d+)*")) {
      throw new IllegalArgumentException(
          "--coordinators is '"
              + coordinators
              + "': give host:port of each coordinator, separated by commas");
    }
    coordinatorHttp =
        o.text(
            "coordinator-http",
            coordinators == null ? null : coordinators.split(",")[0].split(":")[0] + ":19996");
    if (coordinatorHttp != null && coordinators == null) {
      throw new IllegalArgumentException(
          "--coordinator-http names where an existing deployment's servers are listed: give"
              + " --coordinators too");
    }
    driverMemory = o.text("driver-memory");
    sparkHome = o.given("spark-home") ? home.resolve(o.text("spark-home")) : null;
    executorMemory = o.text("executor-memory");
    serverSizing =
        new ProcessCluster.ServerSizing(
            o.text("server-buffer"), o.text("server-read-buffer"), o.text("server-heap"));
    scrapeMs = o.positive("scrape-ms");
    if (scrapeMs < 50) {
      throw new IllegalArgumentException("--scrape-ms must be at least 50");
    }
    runTimeout = o.as("run-timeout", TpcSettings::parseDuration);
    extraConf = refuseDriverJvmSettings(o.pairs("conf"), "--conf");
    sluiceConf = refuseDriverJvmSettings(o.pairs("sluice-conf"), "--sluice-conf");
    serverConf = o.pairs("server-conf");
    output = home.resolve(o.text("output"));
    data = DataLocation.parse(o.text("data"), home);
    markdown = optionalPath(o.text("markdown", "docs/benchmarks/" + section() + ".md"));
    chart = optionalPath(o.text("chart", "docs/benchmarks/" + section() + ".png"));
    command = o.text("command", "TpcBenchmark " + o.arguments());
  }

  private static Duration parseDuration(String value) {
    Matcher m = Pattern.compile("(\\d+)([smh])").matcher(value);
    if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
      throw new IllegalArgumentException(
          "'"
              + value
              + "': give a positive number of seconds, minutes or hours, e.g. 90s, 4m or 1h");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofHours(n);
    };
  }

  private Path optionalPath(String value) {
    return value.equals("-") ? null : home.resolve(value);
  }

  static TpcSettings parse(String[] args) {
    return new TpcSettings(FLAGS.parse(args));
  }

  /**
   * The harness starts the driver's JVM itself (SparkSubmit runs inside it), so Spark settings of
   * that JVM would be silently ignored: refuse them and name what works.
   */
  private static Map<String, String> refuseDriverJvmSettings(
      Map<String, String> conf, String flag) {
    if (conf.containsKey("spark.driver.extraJavaOptions")) {
      throw new IllegalArgumentException(
          flag
              + " spark.driver.extraJavaOptions would be ignored: "
              + "the harness starts the driver JVM itself; set SLUICE_BENCH_SPARK_JAVA_OPTS instead");
    }
    if (conf.containsKey("spark.driver.memory")) {
      throw new IllegalArgumentException(
          flag
              + " spark.driver.memory would be ignored: the "
              + "harness starts the driver JVM itself; use --driver-memory instead");
    }
    return conf;
  }

  String driverMemory() {
    return driverMemory;
  }

  String master() {
    return master;
  }

  SparkInstall install() {
    return new SparkInstall(home, spark, sparkHome);
  }

  boolean onYarn() {
    return master.equals("yarn");
  }

  /**
   * The sluice mode's Spark settings: the checkout's client, then {@code --sluice-conf}. The
   * executors find the client jar at this machine's path of it (local mode; a cluster whose hosts
   * see this checkout at the same path), or on YARN by its file name in their container, where the
   * job brings it ({@code spark.jars}; docs/client.md, "On YARN"). On other clusters {@code
   * --sluice-conf spark.executor.extraClassPath=...} names where their hosts or image keep it.
   */
  Map<String, String> sluiceConf(String coordinators) {
    Map<String, String> c = new LinkedHashMap<>(install().sluiceConf(coordinators));
    if (onYarn()) {
      c.put("spark.executor.extraClassPath", install().shadedClientJar().getFileName().toString());
    }
    c.putAll(sluiceConf);
    return c;
  }

  /**
   * The report section this suite's and line's results go to, also the default chart's name: {@code
   * tpc} or {@code tpcds} for Spark 3.5, {@code tpc-spark-4} or {@code tpcds-spark-4} for Spark 4,
   * so that each keeps its own.
   */
  String section() {
    return suite.label() + (spark.equals("3.5") ? "" : "-spark-" + spark);
  }

  /** Spark settings of every mode. */
  Map<String, String> commonSparkConf() {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("spark.ui.enabled", "false");
    if (master.startsWith("local")) {
      c.put("spark.driver.host", "127.0.0.1");
    } else {
      c.put("spark.executor.memory", executorMemory);
    }
    c.put("spark.local.dir", output.resolve("spark-local").toString());
    c.put("spark.serializer", "org.apache.spark.serializer.KryoSerializer");
    c.put("spark.sql.adaptive.enabled", "true");
    if (suite != Suite.TPCDS) {
      c.put("spark.sql.autoBroadcastJoinThreshold", "-1");
    } else {
      // Spark's broadcast threshold stays: TPC-DS's dimension tables are broadcast as on a
      // cluster; 32 partitions rather than 200 suit scale 1 on a few cores.
      c.put("spark.sql.shuffle.partitions", "32");
    }
    c.put("spark.shuffle.push.enabled", "false");
    c.putAll(extraConf);
    return c;
  }
}
