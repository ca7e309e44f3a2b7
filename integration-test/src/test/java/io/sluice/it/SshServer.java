package io.sluice.it;

import io.sluice.fixtures.Daemons;
import java.io.Closeable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/**
 * An OpenSSH server of the test's own on a loopback port, letting in the current user with a key
 * made for the test: what {@code bin/start-all.sh} needs to reach "other hosts". Where sshd is
 * missing it is installed with apt-get (Debian's {@code openssh-server}) when the test runs as
 * root, as CI does; elsewhere the calling test is skipped, saying why.
 */
final class SshServer implements Closeable {
  private static final Path SSHD = Path.of("/usr/sbin/sshd");

  private final Daemons.Running sshd;
  private final int port;
  private final Path clientKey;

  private SshServer(Daemons.Running sshd, int port, Path clientKey) {
    this.sshd = sshd;
    this.port = port;
    this.clientKey = clientKey;
  }

  static SshServer start(Path dir) throws Exception {
    installIfMissing(dir);
    Path hostKey = dir.resolve("ssh_host_ed25519_key");
    Path clientKey = dir.resolve("client_ed25519_key");
    for (Path key : new Path[] {hostKey, clientKey}) {
      Daemons.Result made =
          Daemons.inProject()
              .run(Map.of(), "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key.toString());
      if (made.exitCode() != 0) {
        throw new IllegalStateException("ssh-keygen failed: " + made.output());
      }
    }
    Path authorized =
        Files.copy(dir.resolve("client_ed25519_key.pub"), dir.resolve("authorized_keys"));
    int port = Daemons.freePort();
    Path config =
        Files.writeString(
            dir.resolve("sshd_config"),
            String.join(
                "\n",
                "Port " + port,
                "ListenAddress 127.0.0.1",
                "HostKey " + hostKey,
                "AuthorizedKeysFile " + authorized,
                "PidFile " + dir.resolve("sshd.pid"),
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PermitRootLogin prohibit-password",
                // The test's files live in a temporary directory that sshd would find too open.
                "StrictModes no",
                "UsePAM no",
                ""));
    // sshd's privilege separation directory, which a machine that never ran sshd lacks.
    Files.createDirectories(Path.of("/run/sshd"));
    Daemons.Running sshd =
        Daemons.inProject().start(Map.of(), SSHD.toString(), "-D", "-e", "-f", config.toString());
    Daemons.awaitPort(port, dir.resolve("sshd.log"));
    return new SshServer(sshd, port, clientKey);
  }

  private static void installIfMissing(Path dir) throws Exception {
    if (Files.isExecutable(SSHD)) {
      return;
    }
    Daemons.Result uid = Daemons.inProject().run(Map.of(), "id", "-u");
    Assumptions.assumeTrue(
        uid.output().strip().equals("0"),
        "sshd is not installed (Debian package openssh-server) and this test is not root");
    Daemons.Result installed =
        Daemons.inProject()
            .run(
                Map.of("DEBIAN_FRONTEND", "noninteractive"),
                "sh",
                "-c",
                "apt-get install -y -q openssh-server || "
                    + "{ apt-get update -q && apt-get install -y -q openssh-server; }");
    Assumptions.assumeTrue(
        Files.isExecutable(SSHD),
        "sshd is missing and apt-get could not install openssh-server: " + installed.output());
  }

  /** What {@code SLUICE_SSH_OPTS} needs to reach this server as the current user. */
  String sshOptions() {
    return "-p "
        + port
        + " -i "
        + clientKey
        + " -o StrictHostKeyChecking=no"
        + " -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR";
  }

  @Override
  public void close() {
    sshd.kill();
  }
}
