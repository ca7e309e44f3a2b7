package io.sluice.server.storage;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * What a server held when it stopped cleanly, so that it serves it again after a restart: every
 * application (its user and secret), shuffle and partition, each partition's file generations and
 * its committed block counts. Written once every block is on disk, read and deleted at the next
 * start; a server that crashed leaves none, and starts empty.
 *
 * <p>Binary, versioned, written to a temporary file and moved into place, readable by the server's
 * user only (it holds application secrets).
 */
public final class RestartManifest {
  /** The file's name in the first local directory; '+' is not allowed in application ids. */
  public static final String FILE = "sluice+restart";
  private static final long MAGIC = 0x534c5549434552L; // "SLUICER"
  private static final int VERSION = 1;

  /** One partition's data file and index file, holding logical bytes from {@code start}. */
  public record Generation(Path dataFile, Path indexFile, long start, long dataLength,
      int blockCount) {}

  /** One partition: its generations, and the blocks each map attempt committed. */
  public record Partition(int partitionId, List<Generation> generations, long[] attempts,
      int[] counts) {}

  public record Shuffle(int shuffleId, int numPartitions, List<Partition> partitions) {}

  /** An application; {@code secret} is null when the server did not authenticate. */
  public record Application(String appId, String user, byte[] secret, List<Shuffle> shuffles) {}

  private RestartManifest() {}

  public static Path location(List<Path> localDirs) {
    return localDirs.get(0).resolve(FILE);
  }

  public static void write(Path file, List<Application> apps) throws IOException {
    Path tmp = file.resolveSibling(FILE + ".tmp");
    Files.deleteIfExists(tmp);
    Files.createFile(tmp, PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rw-------")));
    try (OutputStream raw = Files.newOutputStream(tmp, StandardOpenOption.WRITE);
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(raw))) {
      out.writeLong(MAGIC);
      out.writeInt(VERSION);
      out.writeInt(apps.size());
      for (Application app : apps) {
        out.writeUTF(app.appId());
        out.writeUTF(app.user());
        writeBytes(out, app.secret());
        out.writeInt(app.shuffles().size());
        for (Shuffle shuffle : app.shuffles()) {
          out.writeInt(shuffle.shuffleId());
          out.writeInt(shuffle.numPartitions());
          out.writeInt(shuffle.partitions().size());
          for (Partition p : shuffle.partitions()) {
            writePartition(out, p);
          }
        }
      }
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /**
   * The applications of the manifest at {@code file}; an empty list when there is none.
   *
   * @throws IOException when it cannot be read or is not a manifest of this version
   */
  public static List<Application> read(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      return List.of();
    }
    try (InputStream raw = Files.newInputStream(file);
        DataInputStream in = new DataInputStream(new BufferedInputStream(raw))) {
      if (in.readLong() != MAGIC || in.readInt() != VERSION) {
        throw new IOException(file + " is not a restart manifest of version " + VERSION);
      }
      int appCount = count(in);
      List<Application> apps = new ArrayList<>(appCount);
      for (int a = 0; a < appCount; a++) {
        String appId = in.readUTF();
        String user = in.readUTF();
        byte[] secret = readBytes(in);
        int shuffleCount = count(in);
        List<Shuffle> shuffles = new ArrayList<>(shuffleCount);
        for (int s = 0; s < shuffleCount; s++) {
          int shuffleId = in.readInt();
          int numPartitions = in.readInt();
          int partitionCount = count(in);
          List<Partition> partitions = new ArrayList<>(partitionCount);
          for (int p = 0; p < partitionCount; p++) {
            partitions.add(readPartition(in));
          }
          shuffles.add(new Shuffle(shuffleId, numPartitions, partitions));
        }
        apps.add(new Application(appId, user, secret, shuffles));
      }
      return apps;
    }
  }

  private static void writePartition(DataOutputStream out, Partition p) throws IOException {
    out.writeInt(p.partitionId());
    out.writeInt(p.generations().size());
    for (Generation g : p.generations()) {
      out.writeUTF(g.dataFile().toString());
      out.writeUTF(g.indexFile().toString());
      out.writeLong(g.start());
      out.writeLong(g.dataLength());
      out.writeInt(g.blockCount());
    }
    out.writeInt(p.attempts().length);
    for (int i = 0; i < p.attempts().length; i++) {
      out.writeLong(p.attempts()[i]);
      out.writeInt(p.counts()[i]);
    }
  }

  private static Partition readPartition(DataInputStream in) throws IOException {
    int partitionId = in.readInt();
    int generationCount = count(in);
    List<Generation> generations = new ArrayList<>(generationCount);
    for (int g = 0; g < generationCount; g++) {
      generations.add(new Generation(Path.of(in.readUTF()), Path.of(in.readUTF()), in.readLong(),
          in.readLong(), in.readInt()));
    }
    int commits = count(in);
    long[] attempts = new long[commits];
    int[] counts = new int[commits];
    for (int i = 0; i < commits; i++) {
      attempts[i] = in.readLong();
      counts[i] = in.readInt();
    }
    return new Partition(partitionId, generations, attempts, counts);
  }

  private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
    if (bytes == null) {
      out.writeInt(-1);
      return;
    }
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static byte[] readBytes(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    if (n > 1024) {
      throw new IOException("a secret of " + n + " bytes in the restart manifest");
    }
    byte[] bytes = new byte[n];
    in.readFully(bytes);
    return bytes;
  }

  private static int count(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > 100_000_000) {
      throw new IOException("a count of " + n + " in the restart manifest");
    }
    return n;
  }
}
