package io.sluice.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.fixtures.Daemons;
import io.sluice.fixtures.ProjectRoot;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Spark's history server in a process of its own, as an operator runs it: one Spark line's
 * installation as the build assembles it, with that line's shaded client jar on its class path (how
 * the Sluice tab reaches it), reading the event logs of one directory, on loopback.
 */
final class SparkHistoryServer implements Closeable {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final Path log;
  private final int port;

  private SparkHistoryServer(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
  }

  /** Starts the history server of Spark {@code line} (3.5, 4, 3.4 or 3.3) with its client jar. */
  static SparkHistoryServer start(String line, Path eventLogs, Path log) throws Exception {
    int port = Daemons.freePort();
    // bin/sluice-spark-env.sh names the line's Spark home, client jar and the JVM options.
    String script =
        ". bin/sluice-spark-env.sh && exec \"$JAVA\" -Xmx512m "
            + "\"${SPARK_JAVA_OPENS[@]}\" -cp \"$SPARK_HOME/jars/*:$(sluice_shaded_jar)\" "
            + "-Dspark.history.fs.logDirectory=\"$1\" -Dspark.history.fs.update.interval=1s "
            + "-Dspark.history.ui.port=\"$2\" org.apache.spark.deploy.history.HistoryServer";
    ProcessBuilder pb =
        new ProcessBuilder(
                List.of(
                    "bash",
                    "-c",
                    script,
                    "history-server",
                    eventLogs.toUri().toString(),
                    String.valueOf(port)))
            .directory(ProjectRoot.get().toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("SLUICE_SPARK", line);
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    SparkHistoryServer server = new SparkHistoryServer(pb.start(), log, port);
    try {
      Daemons.awaitPort(port, log);
    } catch (Throwable t) {
      server.close();
      throw t;
    }
    return server;
  }

  String url() {
    return "http://127.0.0.1:" + port;
  }

  /**
   * Waits until the history server lists an application (it scans the directory each second) and
   * returns the id of the first it lists.
   */
  String awaitApplication() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    HttpRequest list = HttpRequest.newBuilder(URI.create(url() + "/api/v1/applications")).build();
    String body = "";
    while (System.nanoTime() < deadline) {
      HttpResponse<String> answer = HTTP.send(list, HttpResponse.BodyHandlers.ofString());
      body = answer.body();
      // While it starts, the port may answer with an HTML page before the REST API is mounted.
      if (answer.statusCode() == 200 && body.stripLeading().startsWith("[")) {
        JsonNode apps = JSON.readTree(body);
        if (!apps.isEmpty()) {
          return apps.get(0).path("id").asText();
        }
      }
      Thread.sleep(200);
    }
    throw new AssertionError(
        "the history server listed no application in 60 s: "
            + body
            + "\nlog:\n"
            + Files.readString(log));
  }

  String log() throws IOException {
    return Files.readString(log);
  }

  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
