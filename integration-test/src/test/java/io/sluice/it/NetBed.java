package io.sluice.it;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Hosts on this machine with addresses of their own: one network namespace per host, joined by a
 * bridge to each other and to this JVM's namespace, whose links a test can cap, cut (packets
 * vanish, no reset reaches either side) and heal. A process started with {@link #command} runs on
 * the host. The work is done by {@code bin/netbed.sh}, the one home of the namespace commands;
 * {@link #close()} removes the bed and kills what runs on it, and {@link #up} first removes a bed
 * of the same name that a killed test run left behind.
 */
final class NetBed implements Closeable {
  private static final long COMMAND_SECONDS = 120;

  private final String name;
  private final int net;
  private final List<String> hosts;

  private NetBed(String name, int net, List<String> hosts) {
    this.name = name;
    this.net = net;
    this.hosts = List.copyOf(hosts);
  }

  /** Skips the calling test, saying why, where this machine cannot make beds (not root, say). */
  static void assumeAvailable() throws IOException, InterruptedException {
    Result check = run(List.of("check"));
    Assumptions.assumeTrue(
        check.exitCode == 0, "network namespaces are not available here: " + check.output.strip());
  }

  /**
   * Makes a bed: the machine's namespace is {@code 10.net.0.1} on it, and host {@code i} of {@code
   * hosts} is {@code 10.net.0.(10 + i)}.
   *
   * @param name 1-6 lower-case letters and digits, unique among the beds that may exist at once
   */
  static NetBed up(String name, int net, List<String> hosts)
      throws IOException, InterruptedException {
    run(List.of("down", name)).orThrow("removing an old bed " + name);
    List<String> args = new ArrayList<>(List.of("up", name, Integer.toString(net)));
    args.addAll(hosts);
    NetBed bed = new NetBed(name, net, hosts);
    try {
      run(args).orThrow("making bed " + name);
    } catch (IOException | RuntimeException e) {
      bed.close();
      throw e;
    }
    return bed;
  }

  /** This JVM's own address on the bed, where the hosts reach it. */
  String gateway() {
    return "10." + net + ".0.1";
  }

  String address(String host) {
    int i = hosts.indexOf(host);
    if (i < 0) {
      throw new IllegalArgumentException("no host " + host + " on bed " + name);
    }
    return "10." + net + ".0." + (10 + i);
  }

  /** {@code command} as run on {@code host}: the process it starts is the command itself. */
  List<String> command(String host, List<String> command) {
    address(host);
    List<String> wrapped = new ArrayList<>(List.of("ip", "netns", "exec", name + "-" + host));
    wrapped.addAll(command);
    return wrapped;
  }

  /** Drops every packet to and from {@code host} until {@link #heal}. */
  void cut(String host) throws IOException, InterruptedException {
    run(List.of("cut", name, host)).orThrow("cutting " + host);
  }

  void heal(String host) throws IOException, InterruptedException {
    run(List.of("heal", name, host)).orThrow("healing " + host);
  }

  /** Caps {@code host}'s link, both ways, to {@code rate} (tc's notation: 100mbit, 1gbit). */
  void cap(String host, String rate) throws IOException, InterruptedException {
    run(List.of("cap", name, host, rate)).orThrow("capping " + host);
  }

  void uncap(String host) throws IOException, InterruptedException {
    run(List.of("uncap", name, host)).orThrow("uncapping " + host);
  }

  @Override
  public void close() throws IOException {
    try {
      run(List.of("down", name)).orThrow("removing bed " + name);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while removing bed " + name, e);
    }
  }

  private record Result(int exitCode, String output) {
    Result orThrow(String what) throws IOException {
      if (exitCode != 0) {
        throw new IOException(what + " failed (exit " + exitCode + "): " + output.strip());
      }
      return this;
    }
  }

  private static Result run(List<String> args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(ProjectRoot.get().resolve(Path.of("bin", "netbed.sh")).toString());
    command.addAll(args);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    // The output is small: read it whole, then wait.
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("netbed.sh " + args + " did not finish in " + COMMAND_SECONDS + " s");
    }
    return new Result(p.exitValue(), output);
  }
}
