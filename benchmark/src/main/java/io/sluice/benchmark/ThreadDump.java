package io.sluice.benchmark;

import io.sluice.fixtures.Daemons;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The threads of a running JVM on this machine, as {@code jcmd <pid> Thread.print} lists them. */
public final class ThreadDump {
  private ThreadDump() {}

  /** The dump, or a line saying why there is none (jcmd gets 30 s). */
  public static String of(long pid) throws InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    try {
      return Daemons.in(Path.of("."))
          .run(
              Map.of(), Duration.ofSeconds(30), jcmd.toString(), Long.toString(pid), "Thread.print")
          .output();
    } catch (IOException e) {
      return "(no thread dump of process " + pid + ": " + e + ")";
    }
  }

  /**
   * The threads worth reading first: those running Sluice code, Spark's task threads and the
   * driver's main thread.
   */
  public static String interesting(String dump) {
    List<String> kept = new ArrayList<>();
    for (String thread : dump.split("\n\\s*\n")) {
      String first = thread.strip();
      if (first.contains("io.sluice")
          || first.startsWith("\"Executor task launch worker")
          || first.startsWith("\"main\"")) {
        kept.add(first);
      }
    }
    return kept.isEmpty() ? dump : String.join("\n\n", kept);
  }
}
