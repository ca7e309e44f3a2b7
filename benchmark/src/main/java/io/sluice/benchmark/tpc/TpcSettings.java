package io.sluice.benchmark.tpc;

import io.sluice.benchmark.Flags;
import io.sluice.benchmark.SparkInstall;
import io.sluice.testcluster.ProcessCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The harness's command line, with the defaults of {@code bin/sluice-bench}. */
final class TpcSettings {
  static final String USAGE =
      String.join(
          "\n",
          "Usage: bin/sluice-bench [flags]",
          "  --spark 3.5|4         the Spark line (default 3.5); 4 runs Spark 4 (Scala 2.13) with",
          "                        the Spark 4 client and reports into its own section and chart",
          "  --tpcds               TPC-DS: every query text of the Spark line's own test jar on",
          "                        dsdgen's data, reported in docs/benchmarks/tpcds.md (Spark 4:",
          "                        tpcds-spark-4.md); without it the TPC-style shuffle queries",
          "  --rdd                 the plain RDD shuffle: partitionBy(HashPartitioner(16)) of",
          "                        (long, 100 random bytes) records, 5 M per scale factor, 16",
          "                        map tasks (defaults: --scale 2, --rounds 5; section 'rdd')",
          "  --scale SF|smoke      scale factor (default 1); smoke = 0.01",
          "  --rounds N            rounds of A B (default 2)",
          "  --modes a,b           default builtin,sluice",
          "  --queries q1,q2|all   default all (TPC-DS: names such as q1,q14a)",
          "  --seed N              data generator seed (default 1)",
          "  --master URL          default local[2]; a cluster's (spark://..., yarn, k8s://...)",
          "                        runs the driver here (client mode) and the executors there",
          "  --coordinators LIST   an existing Sluice deployment's coordinators (host:port,...):",
          "                        the harness starts no servers of its own",
          "  --coordinator-http HOST:PORT  where that deployment's servers are listed (a",
          "                        coordinator's /status), to read their /metrics (default: the",
          "                        first coordinator's host, port 19996; unreachable: no server",
          "                        figures)",
          "  --driver-memory SIZE  driver JVM heap (default 4g)",
          "  --executor-memory SIZE  executors' memory for non-local masters (default 2g)",
          "  --spark-home DIR      a Spark distribution of the --spark line to run the driver",
          "                        from (default: the one the build assembles, which has YARN",
          "                        support on Spark 3.5 and neither YARN nor Kubernetes on 4)",
          "  --server-buffer SIZE  each server's buffer.capacity (default 1g)",
          "  --server-read-buffer SIZE  each server's read.buffer.capacity (default 256m)",
          "  --server-heap SIZE    each server's heap (default 512m)",
          "  --scrape-ms N         how often the servers' /metrics are read (default 1000)",
          "  --run-timeout DURATION  longest a Spark run may take before its threads are dumped",
          "                        and it counts as failed, e.g. 4m or 1h (default 1h)",
          "  --no-warmup           no unmeasured sluice run before the rounds (by default one",
          "                        warms the long-lived servers' JIT up, as a day's jobs would)",
          "  --profile             a flight recording (settings=profile) of every Spark JVM, kept",
          "                        under --output; the report shows where the slowest query's",
          "                        CPU went in each mode",
          "  --conf k=v            an extra Spark setting for every mode (repeatable)",
          "  --sluice-conf k=v     an extra Spark setting for the sluice mode (repeatable)",
          "  --server-conf k=v     an extra setting of both shuffle servers (repeatable)",
          "  --output DIR          results JSON, logs, events (default benchmark/target/tpc)",
          "  --data DIR|URI        generated tables, kept between runs (default",
          "                        benchmark/target/tpc-data); a URI such as hdfs://nn/tpc or",
          "                        s3a://bucket/tpc for executors on other hosts",
          "  --markdown FILE|-     section 'tpc' (Spark 4: 'tpc-spark-4'; TPC-DS: 'tpcds',",
          "                        'tpcds-spark-4'; RDD: 'rdd', 'rdd-spark-4') rewritten",
          "                        (default docs/benchmarks/<section>.md; - for none)",
          "  --chart FILE|-        PNG chart (default docs/benchmarks/<section>.png; - for none)",
          "  --home DIR            the Sluice checkout (set by bin/sluice-bench)",
          "  --command TEXT        the command line to record in the report (set by bin/sluice-bench)");
  private static final List<String> OPTIONS =
      List.of(
          "spark",
          "scale",
          "rounds",
          "modes",
          "queries",
          "seed",
          "master",
          "coordinators",
          "coordinator-http",
          "driver-memory",
          "executor-memory",
          "spark-home",
          "server-buffer",
          "server-read-buffer",
          "server-heap",
          "scrape-ms",
          "run-timeout",
          "output",
          "data",
          "markdown",
          "chart",
          "home",
          "command");

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

  private TpcSettings(
      Suite suite,
      Map<String, String> o,
      Map<String, String> extraConf,
      Map<String, String> sluiceConf,
      Map<String, String> serverConf,
      boolean profile,
      boolean warmUp) {
    this.suite = suite;
    this.profile = profile;
    this.warmUp = warmUp;
    home = Path.of(o.getOrDefault("home", ".")).toAbsolutePath().normalize();
    spark = o.getOrDefault("spark", "3.5");
    if (!SparkInstall.LINES.contains(spark)) {
      throw new IllegalArgumentException("--spark is '" + spark + "': give 3.5 or 4");
    }
    scale = ScaleFactor.parse(o.getOrDefault("scale", suite == Suite.RDD ? "2" : "1"));
    rounds = Integer.parseInt(o.getOrDefault("rounds", suite == Suite.RDD ? "5" : "2"));
    if (rounds < 1) {
      throw new IllegalArgumentException("--rounds must be at least 1");
    }
    modes =
        Arrays.stream(o.getOrDefault("modes", "builtin,sluice").split(","))
            .map(Mode::parse)
            .distinct()
            .toList();
    queries = o.getOrDefault("queries", "all");
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
    seed = Long.parseLong(o.getOrDefault("seed", "1"));
    master = o.getOrDefault("master", "local[2]");
    coordinators = o.get("coordinators");
    if (coordinators != null && !coordinators.matches("[^,:\\s]+:\\d+(,[^,:\\s]+:\\d+)*")) {
      throw new IllegalArgumentException(
          "--coordinators is '"
              + coordinators
              + "': give host:port of each coordinator, separated by commas");
    }
    coordinatorHttp =
        o.getOrDefault(
            "coordinator-http",
            coordinators == null ? null : coordinators.split(",")[0].split(":")[0] + ":19996");
    if (coordinatorHttp != null && coordinators == null) {
      throw new IllegalArgumentException(
          "--coordinator-http names where an existing deployment's servers are listed: give"
              + " --coordinators too");
    }
    driverMemory = o.getOrDefault("driver-memory", "4g");
    sparkHome = o.containsKey("spark-home") ? home.resolve(o.get("spark-home")) : null;
    executorMemory = o.getOrDefault("executor-memory", "2g");
    serverSizing =
        new ProcessCluster.ServerSizing(
            o.getOrDefault("server-buffer", "1g"),
            o.getOrDefault("server-read-buffer", "256m"),
            o.getOrDefault("server-heap", "512m"));
    scrapeMs = Long.parseLong(o.getOrDefault("scrape-ms", "1000"));
    if (scrapeMs < 50) {
      throw new IllegalArgumentException("--scrape-ms must be at least 50");
    }
    runTimeout = parseDuration(o.getOrDefault("run-timeout", "1h"));
    this.extraConf = extraConf;
    this.sluiceConf = sluiceConf;
    this.serverConf = serverConf;
    output = home.resolve(o.getOrDefault("output", "benchmark/target/tpc"));
    data = DataLocation.parse(o.getOrDefault("data", "benchmark/target/tpc-data"), home);
    markdown = optionalPath(o.getOrDefault("markdown", "docs/benchmarks/" + section() + ".md"));
    chart = optionalPath(o.getOrDefault("chart", "docs/benchmarks/" + section() + ".png"));
    command = o.getOrDefault("command", "TpcBenchmark " + String.join(" ", o.keySet()));
  }

  private static Duration parseDuration(String value) {
    Matcher m = Pattern.compile("(\\d+)([smh])").matcher(value);
    if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
      throw new IllegalArgumentException(
          "--run-timeout is '"
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
    Map<String, String> o = new LinkedHashMap<>();
    Map<String, String> extra = new LinkedHashMap<>();
    Map<String, String> sluice = new LinkedHashMap<>();
    Map<String, String> server = new LinkedHashMap<>();
    Flags flags = new Flags(args, USAGE);
    boolean profile = false;
    boolean warmUp = true;
    Suite suite = Suite.TPC;
    while (flags.hasNext()) {
      String flag = flags.next();
      switch (flag) {
        case "--profile" -> profile = true;
        case "--no-warmup" -> warmUp = false;
        case "--tpcds" -> suite = Suite.TPCDS;
        case "--rdd" -> suite = Suite.RDD;
        case "--conf" -> flags.keyValue(flag, extra);
        case "--sluice-conf" -> flags.keyValue(flag, sluice);
        case "--server-conf" -> flags.keyValue(flag, server);
        default -> flags.named(flag, OPTIONS, o);
      }
    }
    refuseDriverJvmSettings(extra, "--conf");
    refuseDriverJvmSettings(sluice, "--sluice-conf");
    return new TpcSettings(suite, o, extra, sluice, server, profile, warmUp);
  }

  /**
   * The harness starts the driver's JVM itself (SparkSubmit runs inside it), so Spark settings of
   * that JVM would be silently ignored: refuse them and name what works.
   */
  private static void refuseDriverJvmSettings(Map<String, String> conf, String flag) {
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
