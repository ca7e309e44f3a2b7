package io.sluice.it;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/** Runs the shipped bin/ scripts in their own processes, as an operator would. */
final class Daemons {
  private Daemons() {}

  /** Runs a script to completion (at most 120 s); returns its exit code and output. */
  static Result run(Path logDir, Map<String, String> env, String... command)
      throws IOException, InterruptedException {
    return start(logDir, env, command).await(Duration.ofSeconds(120));
  }

  /** Starts a script, for a test that acts while it runs; {@link Running#await} ends it. */
  static Running start(Path logDir, Map<String, String> env, String... command) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(List.of(command))
            .directory(ProjectRoot.get().toFile())
            .redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    // Read on another thread: a script whose daemon keeps its output open must still time out.
    CompletableFuture<String> out =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
              } catch (IOException e) {
                return "(output unreadable: " + e + ")";
              }
            });
    return new Running(String.join(" ", command), p, out);
  }

  /** A script started by {@link #start}. */
  static final class Running {
    private final String command;
    private final Process process;
    private final CompletableFuture<String> output;

    private Running(String command, Process process, CompletableFuture<String> output) {
      this.command = command;
      this.process = process;
      this.output = output;
    }

    boolean isAlive() {
      return process.isAlive();
    }

    /** The process started: the script, or what the script replaced itself with. */
    ProcessHandle handle() {
      return process.toHandle();
    }

    /**
     * Waits for the script to end, at most {@code timeout} (then kills it and fails); returns its
     * exit code and output.
     */
    Result await(Duration timeout) throws IOException, InterruptedException {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IOException(command + " did not finish within " + timeout);
      }
      return new Result(process.exitValue(), output.join());
    }

    /** Kills the script and every process it started (SIGKILL), for a test that gives up. */
    void kill() {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }

  record Result(int exitCode, String output) {}

  /** A free port for a daemon this test starts later; see {@link #freePorts}. */
  static int freePort() throws IOException {
    return freePorts(1);
  }

  /**
   * The first of {@code count} consecutive ports that are free now, below the kernel's ephemeral
   * range (32768 and up on Linux): listeners on port 0 and outgoing connections of other tests
   * cannot take them before the daemon binds, as they could an ephemeral port.
   */
  static int freePorts(int count) throws IOException {
    for (int attempt = 0; attempt < 200; attempt++) {
      int base = ThreadLocalRandom.current().nextInt(20_000, 32_768 - count);
      boolean free = true;
      for (int p = base; p < base + count && free; p++) {
        try (ServerSocket s = new ServerSocket(p)) {
          free = s.getLocalPort() == p;
        } catch (IOException e) {
          free = false;
        }
      }
      if (free) {
        return base;
      }
    }
    throw new IOException("no " + count + " consecutive free ports between 20000 and 32767");
  }

  /** Waits until something accepts connections on the port. */
  static void awaitPort(int port, Path logFile) throws Exception {
    awaitPort("127.0.0.1", port, logFile);
  }

  static void awaitPort(String host, int port, Path logFile) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(host, port), 500);
        return;
      } catch (IOException e) {
        Thread.sleep(100);
      }
    }
    String log = Files.exists(logFile) ? Files.readString(logFile) : "(no log)";
    throw new AssertionError("nothing listens on port " + port + "; log:\n" + log);
  }

  static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }
}
