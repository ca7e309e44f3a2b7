package io.sluice.common.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.config.SluiceConf;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MissingSecretsTest {
  @TempDir Path dir;

  private static SluiceConf conf(boolean enabled, Path secret) {
    return SluiceConf.of(
        Map.of(
            AuthOptions.ENABLED.key(),
            String.valueOf(enabled),
            AuthOptions.CLUSTER_SECRET_FILE.key(),
            secret.toString()),
        List.of(new AuthOptions()));
  }

  @Test
  void aMissingSecretIsCreatedForItsOwnerOnlyAndReadsAsASecret() throws Exception {
    Path secret = dir.resolve("conf/cluster.secret");
    List<String> lines =
        MissingSecrets.create(
            conf(true, secret),
            List.of(AuthOptions.CLUSTER_SECRET_FILE.key(), "coordinator.admin.token.file"));
    assertEquals(1, lines.size(), "the token file is not set: " + lines);
    assertTrue(
        lines
            .get(0)
            .startsWith(
                "sluice: created a new secret in " + secret + " ('auth.cluster.secret.file')"),
        lines.get(0));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)));
    String text = Files.readString(secret).strip();
    assertTrue(text.matches("[0-9a-f]{64}"), text);
    SecretFile.read(secret.toString(), AuthOptions.CLUSTER_SECRET_FILE.key());
  }

  @Test
  void anExistingSecretIsLeftAloneAndNothingIsCreatedWithAuthenticationOff() throws Exception {
    Path secret = Files.writeString(dir.resolve("cluster.secret"), "x".repeat(40));
    assertEquals(
        List.of(),
        MissingSecrets.create(conf(true, secret), List.of(AuthOptions.CLUSTER_SECRET_FILE.key())));
    assertEquals("x".repeat(40), Files.readString(secret));
    Path absent = dir.resolve("absent.secret");
    assertEquals(
        List.of(),
        MissingSecrets.create(conf(false, absent), List.of(AuthOptions.CLUSTER_SECRET_FILE.key())));
    assertFalse(Files.exists(absent));
  }
}
