package io.sluice.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What a {@code spark-submit} of a benchmark job needs from this checkout, for one Spark line: the
 * Java to run, the Spark home the build assembles, the jar that holds the job (the application) and
 * the shaded client jar users add to Spark. {@code line} is {@code 3.5} (Scala 2.12: {@code
 * examples/target/spark-home}, {@code client-spark}, the benchmark jar) or {@code 4} (Scala 2.13:
 * {@code examples-spark-4/target/spark-home}, {@code client-spark-4}, and the examples-spark-4 jar,
 * which holds the TPC job compiled for Spark 4); only the TPC job is built for Spark 4. {@code
 * sparkHome} is the Spark installation whose jars run the driver: the one the build assembles
 * unless another is given (a cluster's own distribution, with its YARN or Kubernetes support).
 */
public record SparkInstall(Path home, String line, Path sparkHome) {
  /** The Spark lines, as {@code --spark} and {@code SLUICE_SPARK} name them. */
  public static final List<String> LINES = List.of("3.5", "4");

  public SparkInstall {
    if (!LINES.contains(line)) {
      throw new IllegalArgumentException("Spark line '" + line + "': 3.5 or 4");
    }
    if (sparkHome == null) {
      sparkHome =
          home.resolve(
              line.equals("4")
                  ? "examples-spark-4/target/spark-home"
                  : "examples/target/spark-home");
    }
  }

  /** Spark 3.5 as the build assembles it, the line every benchmark of Spark jobs runs on. */
  public SparkInstall(Path home) {
    this(home, "3.5", null);
  }

  private boolean spark4() {
    return line.equals("4");
  }

  public String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** JVM options of the Spark JVMs: Java 17's add-opens list from bin/, and any extras. */
  public List<String> sparkJavaOptions() {
    List<String> opts = new ArrayList<>();
    for (String env : List.of("SLUICE_SPARK_JAVA_OPTS", "SLUICE_BENCH_SPARK_JAVA_OPTS")) {
      String v = System.getenv(env);
      if (v != null && !v.isBlank()) {
        opts.addAll(Arrays.asList(v.trim().split("\\s+")));
      }
    }
    return opts;
  }

  /** The benchmark module's jar: the harnesses, and the jobs compiled for Spark 3.5. */
  public Path benchmarkJar() {
    return jar(home.resolve("benchmark/target"), "sluice-benchmark-", ".jar");
  }

  /**
   * The application jar that a submit names: the benchmark jar on Spark 3.5; on Spark 4 the
   * examples-spark-4 jar, which holds the TPC job's sources compiled for Spark 4.
   */
  public Path applicationJar() {
    return spark4()
        ? jar(home.resolve("examples-spark-4/target"), "sluice-examples-", ".jar")
        : benchmarkJar();
  }

  /**
   * The jars the TPC job's TPC-DS suite adds to Spark ({@code spark.jars}): this line's spark-sql
   * test jar (Spark's TPC-DS schema and query texts) and dsdgen's Java port, which the build copies
   * into {@code target/tpcds-jars} of the module that holds the job.
   */
  public List<Path> tpcdsJars() {
    Path dir =
        home.resolve(
            spark4() ? "examples-spark-4/target/tpcds-jars" : "benchmark/target/tpcds-jars");
    try (Stream<Path> files = Files.exists(dir) ? Files.list(dir) : Stream.empty()) {
      List<Path> jars = files.filter(f -> f.toString().endsWith(".jar")).sorted().toList();
      if (jars.size() < 2) {
        throw new IllegalStateException(
            "no TPC-DS jars in " + dir + "; build with mvn -B -DskipTests package");
      }
      return jars;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  public Path shadedClientJar() {
    return jar(
        home.resolve(spark4() ? "client-spark-4/target" : "client-spark/target"),
        "",
        "-shaded.jar");
  }

  /**
   * The settings that run a job through Sluice with this checkout's shaded client: the jar on the
   * driver's and executors' class path (a Spark 3.5 need: the manager is created before user jars
   * load), the manager, the coordinators, and no silent fallback to the sort shuffle.
   */
  public Map<String, String> sluiceConf(String coordinators) {
    String jar = shadedClientJar().toString();
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.driver.extraClassPath", jar);
    conf.put("spark.executor.extraClassPath", jar);
    conf.put("spark.shuffle.manager", "io.sluice.client.spark.SluiceShuffleManager");
    conf.put("spark.sluice.coordinators", coordinators);
    conf.put("spark.sluice.fallback.enabled", "false");
    return conf;
  }

  private static Path jar(Path dir, String prefix, String suffix) {
    try (Stream<Path> files = Files.exists(dir) ? Files.list(dir) : Stream.empty()) {
      return files
          .filter(
              f -> {
                String n = f.getFileName().toString();
                return n.startsWith(prefix) && n.endsWith(suffix) && !n.endsWith("-tests.jar");
              })
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "no "
                          + prefix
                          + "*"
                          + suffix
                          + " in "
                          + dir
                          + "; build with mvn -B -DskipTests package"));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
