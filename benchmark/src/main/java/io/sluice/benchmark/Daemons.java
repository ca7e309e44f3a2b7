package io.sluice.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Daemons run as an operator runs them: through the shipped {@code bin/} scripts. */
public final class Daemons {
  private static final Duration SCRIPT_TIMEOUT = Duration.ofSeconds(60);

  private Daemons() {}

  /** A finished command: its exit code and its output (standard error included). */
  public record Result(int exitCode, String output) {}

  /**
   * Runs {@code command} in {@code home} with {@code env} added to the environment, to completion.
   *
   * @throws IOException when it cannot start or takes longer than {@code timeout}
   */
  public static Result run(Path home, Map<String, String> env, Duration timeout, String... command)
      throws IOException, InterruptedException {
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(home.toFile()).redirectErrorStream(true);
    builder.environment().putAll(env);
    Process process = builder.start();
    // Read on another thread, so that a command that never ends cannot block this one past
    // timeout; what it printed so far goes into the error when it overstays.
    StringBuffer printed = new StringBuffer();
    CompletableFuture<String> output =
        CompletableFuture.supplyAsync(
            () -> {
              try (InputStream in = process.getInputStream()) {
                byte[] chunk = new byte[8192];
                for (int n; (n = in.read(chunk)) >= 0; ) {
                  printed.append(new String(chunk, 0, n, StandardCharsets.UTF_8));
                }
                return printed.toString();
              } catch (IOException e) {
                return printed + "\n(output unreadable: " + e + ")";
              }
            });
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      throw new IOException(
          String.join(" ", command)
              + " did not finish within "
              + timeout
              + "; it printed:\n"
              + lastLines(printed.toString(), 300));
    }
    return new Result(process.exitValue(), output.join());
  }

  /**
   * Runs {@code <home>/bin/<script> <conf>} with {@code env} added to the environment and returns
   * its output.
   *
   * @throws IOException when the script fails or takes more than a minute
   */
  public static String script(Path home, String script, Path conf, Map<String, String> env)
      throws IOException, InterruptedException {
    return script(home, script, conf, env, List.of());
  }

  /** As above, run through {@code launcher} (e.g. {@code ip netns exec <namespace>}). */
  public static String script(
      Path home, String script, Path conf, Map<String, String> env, List<String> launcher)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(launcher);
    command.add(home.resolve("bin").resolve(script).toString());
    command.add(conf.toAbsolutePath().toString());
    Result result = run(home, env, SCRIPT_TIMEOUT, command.toArray(String[]::new));
    if (result.exitCode() != 0) {
      throw new IOException(
          "bin/"
              + script
              + " "
              + conf
              + " failed (exit "
              + result.exitCode()
              + "):\n"
              + result.output());
    }
    return result.output().strip();
  }

  /** The last {@code n} lines of a text file, or a line saying it cannot be read. */
  public static String tail(Path file, int n) {
    try {
      return lastLines(Files.readString(file, StandardCharsets.UTF_8), n);
    } catch (IOException e) {
      return "(" + file + " unreadable: " + e + ")";
    }
  }

  private static String lastLines(String text, int n) {
    String[] lines = text.split("\n", -1);
    return String.join(
        "\n", Arrays.asList(lines).subList(Math.max(0, lines.length - n), lines.length));
  }

  /** A TCP port free on 127.0.0.1 now. */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
