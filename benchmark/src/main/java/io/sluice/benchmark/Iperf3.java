package io.sluice.benchmark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Runs iperf3 over loopback, a one-shot server and a client, and reads the received bit rate. */
public final class Iperf3 {
  private static final String HOST = "127.0.0.1";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String executable;

  private Iperf3(String executable) {
    this.executable = executable;
  }

  /**
   * iperf3 for a benchmark's reference figures, or null when {@code wanted} is false; exits the JVM
   * with a message saying how to install it when it is wanted but not on the PATH.
   */
  public static Iperf3 requiredOrExit(boolean wanted) {
    if (!wanted) {
      return null;
    }
    Optional<Iperf3> iperf = locate();
    if (iperf.isEmpty()) {
      System.err.println(
          "iperf3 is not on the PATH: install it (apt-get install iperf3) or pass " + "--no-iperf");
      System.exit(2);
    }
    return iperf.get();
  }

  /** iperf3 from the PATH, if it is there. */
  public static Optional<Iperf3> locate() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      File candidate = new File(dir, "iperf3");
      if (candidate.isFile() && candidate.canExecute()) {
        return Optional.of(new Iperf3(candidate.getPath()));
      }
    }
    return Optional.empty();
  }

  /** The first line of {@code iperf3 --version}. */
  public String version() throws IOException, InterruptedException {
    Process p = new ProcessBuilder(executable, "--version").redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(10, TimeUnit.SECONDS);
    return output.lines().findFirst().orElse("iperf3").trim();
  }

  /**
   * What one iperf3 test measured: the bits per second received over all streams, the CPU its
   * client and server spent per GiB received, and the server's (receiving) share of it.
   */
  public record Measurement(
      double bitsPerSecond, double cpuSecondsPerGib, double receiverCpuSecondsPerGib) {}

  /**
   * Streams TCP from a client to a server on 127.0.0.1: the bits per second the server received
   * over all streams ({@code end.sum_received}), the first {@code omitSeconds} left out, and the
   * CPU both iperf3 processes used per GiB.
   */
  public Measurement measure(int streams, int seconds, int omitSeconds)
      throws IOException, InterruptedException {
    int port = freePort();
    Process server =
        new ProcessBuilder(
                executable, "-s", "-1", "--forceflush", "-p", Integer.toString(port), "-B", HOST)
            .redirectErrorStream(true)
            .start();
    try {
      awaitListening(server, port);
      List<String> command =
          new ArrayList<>(
              List.of(
                  executable,
                  "-c",
                  HOST,
                  "-p",
                  Integer.toString(port),
                  "-t",
                  Integer.toString(seconds),
                  "-J"));
      if (omitSeconds > 0) {
        command.addAll(List.of("-O", Integer.toString(omitSeconds)));
      }
      if (streams > 1) {
        command.addAll(List.of("-P", Integer.toString(streams)));
      }
      Process client = new ProcessBuilder(command).redirectErrorStream(true).start();
      String json = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!client.waitFor(seconds + omitSeconds + 30L, TimeUnit.SECONDS)) {
        client.destroyForcibly();
        throw new IOException("iperf3 client did not finish: " + String.join(" ", command));
      }
      return parse(json);
    } finally {
      if (!server.waitFor(5, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    }
  }

  /**
   * The received rate and CPU of iperf3's JSON output. iperf3 reports each process's CPU as a
   * percentage of one core over the test ({@code end.cpu_utilization_percent}); both together per
   * GiB received is what the transfer cost the machine.
   */
  static Measurement parse(String json) throws IOException {
    JsonNode end = JSON.readTree(json).path("end");
    JsonNode bits = end.path("sum_received").path("bits_per_second");
    if (!bits.isNumber()) {
      JsonNode error = JSON.readTree(json).path("error");
      throw new IOException(
          "iperf3 reported no received sum"
              + (error.isTextual() ? ": " + error.asText() : "; its output was:\n" + json));
    }
    JsonNode cpu = end.path("cpu_utilization_percent");
    if (!cpu.path("host_total").isNumber() || !cpu.path("remote_total").isNumber()) {
      throw new IOException("iperf3 reported no cpu_utilization_percent:\n" + json);
    }
    double receiverCores = cpu.path("remote_total").asDouble() / 100;
    double cores = cpu.path("host_total").asDouble() / 100 + receiverCores;
    double gibPerSecond = bits.asDouble() / 8 / (1L << 30);
    return new Measurement(bits.asDouble(), cores / gibPerSecond, receiverCores / gibPerSecond);
  }

  /** Waits until the server says it listens: a client started earlier would be refused. */
  private static void awaitListening(Process server, int port)
      throws IOException, InterruptedException {
    CountDownLatch listening = new CountDownLatch(1);
    StringBuilder output = new StringBuilder();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  synchronized (output) {
                    output.append(line).append('\n');
                  }
                  if (line.contains("listening")) {
                    listening.countDown();
                  }
                }
              } catch (IOException ignored) {
                // the server exited; awaitListening reports what it printed
              }
            },
            "iperf3-server-output");
    reader.setDaemon(true);
    reader.start();
    if (!listening.await(10, TimeUnit.SECONDS)) {
      server.destroyForcibly();
      synchronized (output) {
        throw new IOException(
            "iperf3 server on port " + port + " did not start listening:\n" + output);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    }
  }
}
