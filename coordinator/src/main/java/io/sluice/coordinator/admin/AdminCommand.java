package io.sluice.coordinator.admin;

import io.sluice.common.auth.Secret;
import io.sluice.common.auth.SecretFile;
import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigException;
import io.sluice.common.config.ConfigLoader;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.metrics.Json;
import io.sluice.common.metrics.JsonReader;
import io.sluice.coordinator.CoordinatorOptions;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code bin/sluice-admin}: a coordinator's servers and applications, and the admin actions on a
 * server, over the coordinator's HTTP port. Tables for people, {@code --json} for scripts.
 */
public final class AdminCommand {
  static final String USAGE =
      String.join(
          "\n",
          "usage: sluice-admin [--coordinator HOST:PORT] [--token-file FILE] [--json] COMMAND [ARG]",
          "",
          "  servers              every server: condition, memory, partitions, last heartbeat",
          "  apps                 applications registered, per user",
          "  shuffles [APP]       shuffles this coordinator assigned, of every application or of APP",
          "  exclude SERVER       no new work for SERVER until 'include'",
          "  include SERVER       lifts an exclusion or a decommission by these commands",
          "  decommission SERVER  no new work while SERVER drains",
          "  drain-status         servers decommissioning, with the partitions they still hold",
          "",
          "  --coordinator   the coordinator's HTTP port as host:port, default $SLUICE_COORDINATOR",
          "                  or coordinator.bind.host and coordinator.http.port of",
          "                  $SLUICE_COORDINATOR_CONF (bin/sluice-admin: conf/coordinator.conf)",
          "  --token-file    file holding the admin token, default $SLUICE_ADMIN_TOKEN_FILE or",
          "                  that file's coordinator.admin.token.file; needed off loopback and",
          "                  with authentication",
          "  --json          JSON instead of tables");

  private AdminCommand() {}

  public static void main(String[] args) {
    System.exit(run(args, System.getenv(), System.out, System.err));
  }

  /** Runs the command; returns the exit code: 0 done, 1 refused or failed, 2 usage. */
  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    String coordinator = env.get("SLUICE_COORDINATOR");
    String tokenFile = env.get("SLUICE_ADMIN_TOKEN_FILE");
    boolean json = false;
    List<String> words = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--coordinator", "--token-file" -> {
          if (i + 1 == args.length) {
            return usage(err, args[i] + " needs a value");
          }
          if (args[i].equals("--coordinator")) {
            coordinator = args[++i];
          } else {
            tokenFile = args[++i];
          }
        }
        case "--json" -> json = true;
        case "-h", "--help" -> {
          out.println(USAGE);
          return 0;
        }
        default -> {
          if (args[i].startsWith("--")) {
            return usage(err, "unknown option " + args[i]);
          }
          words.add(args[i]);
        }
      }
    }
    if (words.isEmpty()) {
      return usage(err, "no command given");
    }
    String command = words.get(0);
    boolean action = List.of("exclude", "include", "decommission").contains(command);
    if (!action && !List.of("servers", "apps", "shuffles", "drain-status").contains(command)) {
      return usage(err, "unknown command '" + command + "'");
    }
    boolean shuffles = command.equals("shuffles");
    if (shuffles ? words.size() > 2 : words.size() != (action ? 2 : 1)) {
      return usage(
          err,
          action
              ? command + " needs one SERVER id (as 'servers' lists them)"
              : shuffles
                  ? "shuffles takes at most one application id"
                  : command + " takes no arguments");
    }
    try {
      // Unless given, the address and the token file are this host's coordinator's.
      SluiceConf local = localConf(env.get("SLUICE_COORDINATOR_CONF"));
      if (coordinator == null) {
        String host = local.get(CoordinatorOptions.BIND_HOST);
        if (host.equals("0.0.0.0") || host.equals("::")) {
          host = InetAddress.getLoopbackAddress().getHostAddress();
        }
        coordinator = host + ":" + local.get(CoordinatorOptions.HTTP_PORT);
      }
      if (tokenFile == null) {
        tokenFile = local.getOptional(CoordinatorOptions.ADMIN_TOKEN_FILE).orElse(null);
      }
      Secret token = tokenFile == null ? null : SecretFile.read(tokenFile, "--token-file");
      AdminClient client = new AdminClient(coordinator, token);
      if (action) {
        String answer = client.action(command, words.get(1));
        out.println(json ? answer : describe(command, words.get(1), answer));
        return 0;
      }
      if (shuffles) {
        List<Object> apps = client.applications();
        if (words.size() == 2) {
          apps = apps.stream().filter(a -> words.get(1).equals(map(a).get("id"))).toList();
        }
        out.print(json ? Json.write(apps) + "\n" : StatusTables.shuffles(apps));
        return 0;
      }
      Map<String, Object> status = client.status();
      switch (command) {
        case "servers" ->
            out.print(
                json
                    ? Json.write(status.get("servers")) + "\n"
                    : StatusTables.servers(list(status.get("servers"))));
        case "apps" ->
            out.print(
                json
                    ? Json.write(status.get("applications")) + "\n"
                    : StatusTables.applications(map(status.get("applications"))));
        default -> {
          List<Object> draining = new ArrayList<>();
          for (Object s : list(status.get("servers"))) {
            if ("decommissioning".equals(map(s).get("condition"))) {
              draining.add(s);
            }
          }
          out.print(json ? Json.write(draining) + "\n" : StatusTables.draining(draining));
        }
      }
      return 0;
    } catch (AdminException | ConfigException e) {
      err.println("sluice-admin: " + e.getMessage());
      return 1;
    }
  }

  /** The coordinator configuration at {@code file}, or the defaults when there is none. */
  private static SluiceConf localConf(String file) {
    if (file == null || !Files.isRegularFile(Path.of(file))) {
      return SluiceConf.empty();
    }
    return ConfigLoader.load(Path.of(file), Map.of(), ConfigDocGenerator.discover());
  }

  private static String describe(String command, String server, String answer) {
    Object parsed = JsonReader.parse(answer);
    Map<String, Object> fields = map(parsed);
    String done =
        switch (command) {
          case "exclude" -> "excluded: it gets no new work until 'include'";
          case "include" -> "included";
          default -> "decommissioning: it gets no new work; 'drain-status' shows what it holds";
        };
    String line = "Server " + server + " " + done + ".";
    if (fields.get("stillExcludedBy") != null) {
      line += " It stays excluded by " + fields.get("stillExcludedBy") + ".";
    }
    return line;
  }

  private static int usage(PrintStream err, String problem) {
    err.println("sluice-admin: " + problem + "\n" + USAGE);
    return 2;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object o) {
    return o instanceof List<?> l ? (List<Object>) l : List.of();
  }
}
