package io.sluice.server.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RestartManifestTest {
  @TempDir Path dir;

  @Test
  void whatIsWrittenReadsBackAndOnlyTheServersUserCanReadIt() throws IOException {
    Path file = RestartManifest.locations(List.of(dir)).get(0);
    RestartManifest.Partition p =
        new RestartManifest.Partition(
            3,
            List.of(
                new RestartManifest.Generation(
                    dir.resolve("a/0/3-0.data"), dir.resolve("a/0/3-0.index"), 0, 1000, 4),
                new RestartManifest.Generation(
                    dir.resolve("a/0/3-1.data"), dir.resolve("a/0/3-1.index"), 1000, 24, 1)),
            new long[] {7, 9},
            new int[] {3, 2});
    List<RestartManifest.Application> apps =
        List.of(
            new RestartManifest.Application(
                "app-1",
                "alice",
                new byte[] {1, 2, 3},
                List.of(new RestartManifest.Shuffle(0, 8, List.of(p)))),
            new RestartManifest.Application("app-2", "bob", null, List.of()));
    RestartManifest.write(file, apps);

    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    List<RestartManifest.Application> read = RestartManifest.read(file);
    assertEquals(2, read.size());
    assertEquals("alice", read.get(0).user());
    assertArrayEquals(new byte[] {1, 2, 3}, read.get(0).secret());
    assertNull(read.get(1).secret());
    RestartManifest.Partition back = read.get(0).shuffles().get(0).partitions().get(0);
    assertEquals(8, read.get(0).shuffles().get(0).numPartitions());
    assertEquals(p.generations(), back.generations());
    assertArrayEquals(p.attempts(), back.attempts());
    assertArrayEquals(p.counts(), back.counts());
    assertTrue(Files.notExists(file.resolveSibling(RestartManifest.FILE + ".tmp")));
  }

  @Test
  void anyNameAClientRegisteredCanBeRecorded() throws IOException {
    // Modified UTF-8 (DataOutput.writeUTF) cannot hold these: NULs take two bytes, emoji six.
    String nuls = "\0".repeat(40_000);
    String emoji = "\uD83D\uDE00".repeat(11_000);
    Path file = dir.resolve(RestartManifest.FILE);
    RestartManifest.write(
        file,
        List.of(
            new RestartManifest.Application("app-1", nuls, null, List.of()),
            new RestartManifest.Application("app-2", emoji, null, List.of())));
    List<RestartManifest.Application> read = RestartManifest.read(file);
    assertEquals(nuls, read.get(0).user());
    assertEquals(emoji, read.get(1).user());
  }

  @Test
  void aRecordOthersCouldHaveWrittenIsNotTrusted() throws IOException {
    Path file = dir.resolve(RestartManifest.FILE);
    RestartManifest.write(file, List.of());
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
    IOException e = assertThrows(IOException.class, () -> RestartManifest.read(file));
    assertTrue(e.getMessage().contains("rw-------"), e.getMessage());
  }

  @Test
  void noFileMeansNothingToRecover() throws IOException {
    assertEquals(List.of(), RestartManifest.read(dir.resolve(RestartManifest.FILE)));
  }

  @Test
  void aTruncatedForeignOrHostileFileIsRefusedWithoutAllocatingWhatItClaims() throws IOException {
    Path file = dir.resolve(RestartManifest.FILE);
    RestartManifest.write(
        file,
        List.of(
            new RestartManifest.Application(
                "app-1", "u", null, List.of(new RestartManifest.Shuffle(0, 1, List.of())))));
    byte[] whole = Files.readAllBytes(file);

    Files.write(file, java.util.Arrays.copyOf(whole, whole.length - 3));
    assertThrows(IOException.class, () -> RestartManifest.read(file));

    Files.writeString(file, "not a manifest at all, but long enough to hold a header");
    assertThrows(IOException.class, () -> RestartManifest.read(file));

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.write(whole, 0, 12); // magic and version
    out.writeInt(50_000_000); // applications: far more than the file can hold
    Files.write(file, bytes.toByteArray());
    IOException count = assertThrows(IOException.class, () -> RestartManifest.read(file));
    assertTrue(count.getMessage().contains("count"), count.getMessage());

    bytes.reset();
    out.write(whole, 0, 12);
    out.writeInt(1);
    out.writeInt(5);
    out.write("app-1".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    out.writeInt(1);
    out.write('u');
    out.writeInt(1 << 30); // a secret of 1 GiB
    Files.write(file, bytes.toByteArray());
    IOException secret = assertThrows(IOException.class, () -> RestartManifest.read(file));
    assertTrue(secret.getMessage().contains("secret"), secret.getMessage());
  }
}
