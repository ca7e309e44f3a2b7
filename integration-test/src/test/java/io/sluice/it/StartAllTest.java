package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.fixtures.Await;
import io.sluice.fixtures.Daemons;
import io.sluice.testcluster.MetricsScrape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/start-all.sh} and {@code bin/stop-all.sh} start and stop a cluster from its hosts
 * files over real ssh (an sshd of the test's own, {@link SshServer}), with authentication on as the
 * shipped configuration has it, and tell the truth: a host they cannot reach makes them exit 1
 * naming it, while the reachable hosts' daemons start and stop all the same.
 */
class StartAllTest {
  private static final String UNREACHABLE = "sluice-no-such-host.invalid";

  @TempDir Path dir;
  private SshServer ssh;
  private Path conf;
  private Map<String, String> env;
  private int coordinatorHttp;

  @BeforeEach
  void cluster() throws Exception {
    ssh = SshServer.start(Files.createDirectories(dir.resolve("ssh")));
    conf = Files.createDirectories(dir.resolve("conf"));
    int coordinatorPort = Daemons.freePort();
    coordinatorHttp = Daemons.freePort();
    Files.writeString(
        conf.resolve("coordinator.conf"),
        String.join(
            "\n",
            "coordinator.bind.host 127.0.0.1",
            "coordinator.port " + coordinatorPort,
            "coordinator.http.port " + coordinatorHttp,
            "auth.enabled true",
            "auth.cluster.secret.file ${SLUICE_CONF_DIR}/cluster.secret",
            "coordinator.admin.token.file ${SLUICE_CONF_DIR}/admin.token",
            ""));
    Files.writeString(
        conf.resolve("server.conf"),
        String.join(
            "\n",
            "server.bind.host 127.0.0.1",
            "server.port " + Daemons.freePort(),
            "server.http.port " + Daemons.freePort(),
            "server.coordinators 127.0.0.1:" + coordinatorPort,
            "auth.enabled true",
            "auth.cluster.secret.file ${SLUICE_CONF_DIR}/cluster.secret",
            "local.dirs " + dir.resolve("data"),
            "disk.min.free 0",
            "buffer.capacity 64m",
            "read.buffer.capacity 16m",
            ""));
    // What every host reads: the hosts reached by ssh see this file, not the test's environment.
    Files.writeString(
        conf.resolve("sluice-env.sh"),
        String.join(
            "\n",
            "JAVA_HOME=" + System.getProperty("java.home"),
            "SLUICE_LOG_DIR=" + dir.resolve("logs"),
            "SLUICE_PID_DIR=" + dir.resolve("run"),
            "SLUICE_SERVER_HEAP=256m",
            "SLUICE_COORDINATOR_HEAP=256m",
            ""));
    Files.writeString(conf.resolve("coordinators"), "# the test's coordinator\n127.0.0.1\n");
    env = new HashMap<>();
    env.put("SLUICE_CONF_DIR", conf.toString());
    env.put("SLUICE_SSH_OPTS", ssh.sshOptions());
    env.put("SLUICE_SSH_TIMEOUT", "5");
  }

  @AfterEach
  void stop() throws Exception {
    // Whatever the test left running, stopped here and not over ssh.
    Daemons.inProject().run(env, "bin/stop-server.sh", conf.resolve("server.conf").toString());
    Daemons.inProject()
        .run(env, "bin/stop-coordinator.sh", conf.resolve("coordinator.conf").toString());
    ssh.close();
  }

  private boolean running(String kind) throws Exception {
    Daemons.Result status =
        Daemons.inProject()
            .run(env, "bin/status-" + kind + ".sh", conf.resolve(kind + ".conf").toString());
    return status.exitCode() == 0;
  }

  private double registeredServers() {
    try {
      return MetricsScrape.fetch(coordinatorHttp).sum("sluice_coordinator_servers");
    } catch (Exception e) {
      return -1;
    }
  }

  @Test
  void startAllAndStopAllRunEveryHostsScriptOverSsh() throws Exception {
    Files.writeString(conf.resolve("servers"), "localhost\n");
    Daemons.Result started = Daemons.inProject().run(env, "bin/start-all.sh");
    assertEquals(0, started.exitCode(), started.output());
    // Made once, here, before any host starts: the hosts' own starts make none.
    String created = "sluice: created a new secret in " + conf.resolve("cluster.secret");
    assertTrue(
        started.output().contains(created)
            && started.output().indexOf(created) < started.output().indexOf("127.0.0.1: "),
        started.output());
    assertEquals(
        2,
        started.output().split("created a new secret", -1).length - 1,
        "the cluster secret and the admin token: " + started.output());
    assertTrue(started.output().contains("localhost: "), started.output());
    assertTrue(running("coordinator") && running("server"), started.output());
    Await.until(
        () -> registeredServers() == 1,
        "the server registered with the coordinator, both authenticating");

    Daemons.Result stopped = Daemons.inProject().run(env, "bin/stop-all.sh");
    assertEquals(0, stopped.exitCode(), stopped.output());
    assertTrue(!running("server") && !running("coordinator"), stopped.output());
  }

  @Test
  void aHostOutOfReachFailsBothScriptsByNameAndTheOthersStillStartAndStop() throws Exception {
    Files.writeString(conf.resolve("servers"), "localhost\n" + UNREACHABLE + "  # gone\n\n");
    Daemons.Result started = Daemons.inProject().run(env, "bin/start-all.sh");
    assertEquals(1, started.exitCode(), started.output());
    assertTrue(
        started
            .output()
            .contains(
                "sluice: start-server.sh failed on 1 of 2 hosts of "
                    + conf.resolve("servers")
                    + ": "
                    + UNREACHABLE
                    + " (exit 255)"),
        started.output());
    assertTrue(running("server"), "localhost's server started: " + started.output());
    Await.until(() -> registeredServers() == 1, "the reachable server registered");

    Daemons.Result stopped = Daemons.inProject().run(env, "bin/stop-all.sh");
    assertEquals(1, stopped.exitCode(), stopped.output());
    assertTrue(
        stopped
            .output()
            .contains(
                "sluice: stop-server.sh failed on 1 of 2 hosts of "
                    + conf.resolve("servers")
                    + ": "
                    + UNREACHABLE
                    + " (exit 255)"),
        stopped.output());
    assertTrue(!running("server") && !running("coordinator"), stopped.output());
  }
}
