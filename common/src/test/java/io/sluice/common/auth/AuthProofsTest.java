package io.sluice.common.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.config.ConfigException;
import io.sluice.common.protocol.AuthRole;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The exchange's cryptography and the secret files it starts from. */
class AuthProofsTest {
  private static final Secret KEY = Secret.random();

  @TempDir Path dir;

  private static AuthProofs.Transcript transcript(String app) {
    return new AuthProofs.Transcript(
        AuthRole.REGISTRAR, app, AuthProofs.nonce(), AuthProofs.nonce());
  }

  @Test
  void proofsAreBoundToTheKeyTheSideAndEveryFieldOfTheExchange() {
    AuthProofs.Transcript t = transcript("app-1");
    byte[] client = AuthProofs.clientProof(KEY, t);

    assertTrue(AuthProofs.matches(client, AuthProofs.clientProof(KEY, t)));
    assertFalse(AuthProofs.matches(client, AuthProofs.serverProof(KEY, t)), "sides differ");
    assertFalse(AuthProofs.matches(client, AuthProofs.clientProof(Secret.random(), t)));
    assertFalse(
        AuthProofs.matches(
            client,
            AuthProofs.clientProof(
                KEY,
                new AuthProofs.Transcript(
                    AuthRole.APPLICATION, "app-1", t.clientNonce(), t.serverNonce()))),
        "the role is covered");
    assertFalse(
        AuthProofs.matches(
            client,
            AuthProofs.clientProof(
                KEY,
                new AuthProofs.Transcript(t.role(), "app-2", t.clientNonce(), t.serverNonce()))));
    assertFalse(
        AuthProofs.matches(
            client,
            AuthProofs.clientProof(
                KEY,
                new AuthProofs.Transcript(t.role(), "app-1", t.clientNonce(), AuthProofs.nonce()))),
        "a proof cannot be replayed against another challenge");
  }

  @Test
  void aWrappedSecretOpensOnlyForItsExchangeAndItsClusterSecret() throws Exception {
    Secret app = Secret.random();
    AuthProofs.Transcript t = transcript("app-1");
    byte[] wrapped = AuthProofs.wrap(KEY, app, t);

    assertEquals(app, AuthProofs.unwrap(KEY, wrapped, t));
    assertThrows(
        GeneralSecurityException.class, () -> AuthProofs.unwrap(Secret.random(), wrapped, t));
    assertThrows(
        GeneralSecurityException.class,
        () -> AuthProofs.unwrap(KEY, wrapped, transcript("app-1")),
        "another exchange");
    byte[] altered = wrapped.clone();
    altered[altered.length - 1] ^= 1;
    assertThrows(GeneralSecurityException.class, () -> AuthProofs.unwrap(KEY, altered, t));
    assertFalse(
        new String(wrapped, java.nio.charset.StandardCharsets.ISO_8859_1).contains(app.toBase64()),
        "the secret does not travel in clear");
  }

  @Test
  void aSecretFileMustBeLongEnoughAndPrivate() throws Exception {
    Path file = dir.resolve("cluster.secret");
    Files.writeString(file, "0123456789abcdef0123456789abcdef\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    assertArrayEquals(
        "0123456789abcdef0123456789abcdef".getBytes(),
        SecretFile.read(file.toString(), "auth.cluster.secret.file").copyOfBytes());

    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    ConfigException open =
        assertThrows(
            ConfigException.class,
            () -> SecretFile.read(file.toString(), "auth.cluster.secret.file"));
    assertTrue(open.getMessage().contains("chmod 600"), open.getMessage());

    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    Files.writeString(file, "short");
    ConfigException shortOne =
        assertThrows(
            ConfigException.class,
            () -> SecretFile.read(file.toString(), "auth.cluster.secret.file"));
    assertTrue(shortOne.getMessage().contains("auth.cluster.secret.file"), shortOne.getMessage());

    ConfigException missing =
        assertThrows(
            ConfigException.class,
            () -> SecretFile.read(dir.resolve("none").toString(), "auth.cluster.secret.file"));
    assertTrue(missing.getMessage().contains("not a readable file"), missing.getMessage());
  }

  @Test
  void aSecretNeverPrintsItsBytes() {
    Secret s = Secret.random();
    assertEquals("Secret[32 bytes]", s.toString());
  }
}
