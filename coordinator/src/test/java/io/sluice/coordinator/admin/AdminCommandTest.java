package io.sluice.coordinator.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.coordinator.CoordinatorClient;
import io.sluice.common.metrics.JsonReader;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.coordinator.CoordinatorServer;
import io.sluice.coordinator.CoordinatorTestSupport;
import io.sluice.coordinator.TestServers;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice-admin} against a real coordinator in this JVM, with servers heart-beating and an
 * application registered: tables and JSON of servers, applications and drains, the three actions,
 * and every way it can be refused (token, address, usage), each with a message saying what to do.
 */
class AdminCommandTest {
  private static final long GIB = 1L << 30;
  private static final String TOKEN = "admin-token-0123456789abcdef0123456789";

  @TempDir Path dir;
  private CoordinatorServer coordinator;
  private TransportClientFactory factory;
  private CoordinatorClient client;

  private void start(boolean withToken) throws Exception {
    var conf = CoordinatorTestSupport.conf();
    if (withToken) {
      conf = conf.with(CoordinatorOptions.ADMIN_TOKEN_FILE, tokenFile().toString());
    }
    coordinator = CoordinatorTestSupport.start(conf);
    factory = CoordinatorTestSupport.clientFactory();
    client = CoordinatorTestSupport.client(factory, coordinator);
    for (ServerStatus s :
        List.of(TestServers.status("s1", "host-1", GIB), TestServers.status("s2", "host-2", GIB))) {
      assertEquals(1, client.sendHeartbeat(s).get(5, TimeUnit.SECONDS));
    }
    client.registerApplication("app-1", "alice");
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
      factory.close();
      coordinator.close();
    }
  }

  @Test
  void listsServersAndApplicationsAndDrivesADecommission() throws Exception {
    start(false);

    Result servers = admin("servers");
    assertEquals(0, servers.code, servers.err);
    assertTrue(servers.out.startsWith("SERVER"), servers.out);
    assertTrue(servers.out.contains("s1") && servers.out.contains("host-2:19999"), servers.out);
    assertTrue(servers.out.endsWith("2 servers\n"), servers.out);

    Result json = admin("--json", "servers");
    List<?> parsed = (List<?>) JsonReader.parse(json.out);
    assertEquals(2, parsed.size(), json.out);
    assertEquals("active", ((Map<?, ?>) parsed.get(0)).get("condition"));

    Result apps = admin("apps");
    assertTrue(
        apps.out.contains("alice") && apps.out.contains("1 applications registered"), apps.out);

    // Shuffles as this coordinator assigned them: a new one, then a relocation of two of its
    // partitions away from s1.
    assertTrue(admin("shuffles").out.startsWith("APPLICATION"), admin("shuffles").out);
    client.getAssignment("app-1", 7, 40, 2, List.of(), List.of());
    client.getAssignment("app-1", 7, 2, 1, List.of(), List.of("s1"));
    Result shuffles = admin("shuffles");
    assertEquals(0, shuffles.code, shuffles.err);
    String[] lines = shuffles.out.split("\n");
    assertEquals(
        List.of("app-1", "alice", "7", "40", "2", "2", "1"),
        List.of(lines[1].trim().split(" +")).subList(0, 7),
        shuffles.out);
    assertTrue(shuffles.out.endsWith("1 shuffle of 1 application\n"), shuffles.out);
    List<?> parsedShuffles = (List<?>) JsonReader.parse(admin("--json", "shuffles", "app-1").out);
    Map<?, ?> app = (Map<?, ?>) parsedShuffles.get(0);
    Map<?, ?> shuffle = (Map<?, ?>) ((List<?>) app.get("shuffles")).get(0);
    assertEquals(
        List.of("s1", "s2"),
        List.copyOf(new java.util.TreeSet<Object>((List<?>) shuffle.get("servers"))));
    assertEquals(1L, ((Number) shuffle.get("relocations")).longValue());
    assertEquals("[]\n", admin("--json", "shuffles", "app-2").out);
    assertEquals(2, admin("shuffles", "a", "b").code);

    assertEquals("No server is decommissioning.\n", admin("drain-status").out);
    Result drain = admin("decommission", "s2");
    assertEquals(0, drain.code, drain.err);
    assertTrue(drain.out.startsWith("Server s2 decommissioning"), drain.out);
    Result draining = admin("--json", "drain-status");
    List<?> decommissioning = (List<?>) JsonReader.parse(draining.out);
    assertEquals(1, decommissioning.size(), draining.out);
    assertEquals("s2", ((Map<?, ?>) decommissioning.get(0)).get("id"));
    assertTrue(admin("drain-status").out.contains("s2"));

    assertEquals(0, admin("include", "s2").code);
    Result excluded = admin("--json", "exclude", "s1");
    assertEquals(
        "excluded", ((Map<?, ?>) JsonReader.parse(excluded.out)).get("action"), excluded.out);
    assertTrue(admin("servers").out.contains("excluded"));
  }

  @Test
  void theTokenIsSentWhenGivenAndAskedForWhenMissing() throws Exception {
    start(true);

    Result refused = admin("exclude", "s1");
    assertEquals(1, refused.code);
    assertTrue(
        refused.err.contains("give --token-file")
            && refused.err.contains("coordinator.admin.token.file"),
        refused.err);

    Result done = admin("--token-file", tokenFile().toString(), "exclude", "s1");
    assertEquals(0, done.code, done.err);
    assertTrue(done.out.startsWith("Server s1 excluded"), done.out);
    assertEquals(
        0,
        run(
                new String[] {"servers"},
                Map.of(
                    "SLUICE_COORDINATOR",
                    address(),
                    "SLUICE_ADMIN_TOKEN_FILE",
                    tokenFile().toString()))
            .code,
        "reads need no token");
  }

  @Test
  void mistakesAreNamed() throws Exception {
    start(false);

    Result unknown = admin("decommission", "nobody");
    assertEquals(1, unknown.code);
    assertTrue(unknown.err.contains("server nobody is not registered"), unknown.err);

    Result unreachable = run(new String[] {"--coordinator", "127.0.0.1:1", "servers"}, Map.of());
    assertEquals(1, unreachable.code);
    assertTrue(
        unreachable.err.contains("cannot reach the coordinator's HTTP port at 127.0.0.1:1")
            && unreachable.err.contains("--coordinator"),
        unreachable.err);

    Path conf =
        Files.writeString(
            dir.resolve("coordinator.conf"),
            "coordinator.bind.host 0.0.0.0\ncoordinator.http.port "
                + coordinator.httpPort()
                + "\n");
    Result fromConf =
        run(new String[] {"servers"}, Map.of("SLUICE_COORDINATOR_CONF", conf.toString()));
    assertEquals(0, fromConf.code, "the address from the coordinator's own file: " + fromConf.err);

    assertEquals(2, admin("exclude").code);
    assertEquals(2, admin("servers", "extra").code);
    Result typo = admin("serverz");
    assertEquals(2, typo.code);
    assertTrue(
        typo.err.contains("unknown command 'serverz'") && typo.err.contains("usage:"), typo.err);
    assertEquals(2, admin("--colour", "servers").code);
    assertEquals(0, admin("--help").code);
  }

  private Path tokenFile() throws Exception {
    Path file = dir.resolve("admin.token");
    if (!Files.exists(file)) {
      Files.writeString(file, TOKEN);
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }
    return file;
  }

  private String address() {
    return "127.0.0.1:" + coordinator.httpPort();
  }

  private Result admin(String... args) {
    return run(args, Map.of("SLUICE_COORDINATOR", address()));
  }

  private static Result run(String[] args, Map<String, String> env) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        AdminCommand.run(
            args,
            env,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private record Result(int code, String out, String err) {}
}
