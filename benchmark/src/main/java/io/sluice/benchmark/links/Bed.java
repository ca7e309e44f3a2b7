package io.sluice.benchmark.links;

import io.sluice.benchmark.Daemons;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A network test bed made by {@code bin/netbed.sh} (the one home of the namespace commands): hosts
 * with addresses of their own, joined by a bridge, whose links can be capped. Closing it removes
 * the bed and everything that runs on it.
 */
final class Bed implements AutoCloseable {
  private static final Duration COMMAND_TIME = Duration.ofMinutes(2);

  private final Path home;
  private final String name;
  private final int net;
  private final List<String> hosts;

  private Bed(Path home, String name, int net, List<String> hosts) {
    this.home = home;
    this.name = name;
    this.net = net;
    this.hosts = List.copyOf(hosts);
  }

  /** Makes the bed (removing one of the same name first); fails saying why beds cannot be made. */
  static Bed up(Path home, String name, int net, List<String> hosts)
      throws IOException, InterruptedException {
    Bed bed = new Bed(home, name, net, hosts);
    bed.run("check");
    bed.run("down", name);
    List<String> args = new ArrayList<>(List.of("up", name, String.valueOf(net)));
    args.addAll(hosts);
    try {
      bed.run(args.toArray(String[]::new));
    } catch (IOException | RuntimeException e) {
      bed.close();
      throw e;
    }
    return bed;
  }

  String address(String host) {
    int i = hosts.indexOf(host);
    if (i < 0) {
      throw new IllegalArgumentException("no host " + host + " on bed " + name);
    }
    return "10." + net + ".0." + (10 + i);
  }

  /** What a command is prefixed with to run on {@code host}. */
  List<String> launcher(String host) {
    address(host);
    return List.of("ip", "netns", "exec", name + "-" + host);
  }

  /** Caps every host's link, both ways, to {@code rate} (tc's notation: 1gbit, 10gbit). */
  void capAll(String rate) throws IOException, InterruptedException {
    for (String host : hosts) {
      run("cap", name, host, rate);
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    run("down", name);
  }

  private void run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(home.resolve("bin/netbed.sh").toString()));
    command.addAll(List.of(args));
    Daemons.Result result =
        Daemons.run(home, java.util.Map.of(), COMMAND_TIME, command.toArray(String[]::new));
    if (result.exitCode() != 0) {
      throw new IOException(
          "bin/netbed.sh "
              + String.join(" ", args)
              + " failed (exit "
              + result.exitCode()
              + "): "
              + result.output().strip());
    }
  }
}
