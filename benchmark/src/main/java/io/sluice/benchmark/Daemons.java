package io.sluice.benchmark;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Daemons run as an operator runs them: through the shipped {@code bin/} scripts. */
public final class Daemons {
  private static final long SCRIPT_TIMEOUT_SECONDS = 60;

  private Daemons() {}

  /**
   * Runs {@code <home>/bin/<script> <conf>} with {@code env} added to the environment and returns
   * its output.
   *
   * @throws IOException when the script fails or takes more than a minute
   */
  public static String script(Path home, String script, Path conf, Map<String, String> env)
      throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(home.resolve("bin").resolve(script).toString(),
        conf.toAbsolutePath().toString()).directory(home.toFile()).redirectErrorStream(true);
    builder.environment().putAll(env);
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(SCRIPT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException("bin/" + script + " did not finish:\n" + output);
    }
    if (process.exitValue() != 0) {
      throw new IOException("bin/" + script + " " + conf + " failed (exit " + process.exitValue()
          + "):\n" + output);
    }
    return output.strip();
  }

  /** A TCP port free on 127.0.0.1 now. */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
