package io.sluice.server.storage;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a server held when it stopped cleanly, so that it serves it again after a restart: every
 * application (its user and secret), shuffle and partition, each partition's file generations and
 * its committed block counts. Written once every block is on disk, read and deleted at the next
 * start; a server that crashed leaves none, and starts empty.
 *
 * <p>Binary, versioned, written to a temporary file, forced to the device and moved into place,
 * readable by the server's user only (it holds application secrets); a record that is not the
 * server's user's own with that mode is not trusted. Strings are length-prefixed UTF-8, so any name
 * a client registered can be recorded; counts are checked against the file's size before anything
 * is allocated for them.
 */
public final class RestartManifest {
  /** The file's name in the first local directory; '+' is not allowed in application ids. */
  public static final String FILE = "sluice+restart";

  private static final long MAGIC = 0x534c5549434552L; // "SLUICER"

  /** Version 3 added segments on the HDFS tier; version 2 records (local files only) still read. */
  private static final int VERSION = 3;

  private static final int LOCAL_ONLY_VERSION = 2;
  private static final byte LOCAL = 0;
  private static final byte SEGMENT = 1;

  /** Longest string recorded (paths, application ids, user names), in UTF-8 bytes. */
  private static final int MAX_STRING_BYTES = 64 * 1024;

  /**
   * One partition's data file and index file, holding logical bytes from {@code start}; or, with
   * {@code segment} set (the URI of a segment file on the HDFS tier) and no local files, that
   * segment.
   */
  public record Generation(
      Path dataFile, Path indexFile, String segment, long start, long dataLength, int blockCount) {

    public Generation(Path dataFile, Path indexFile, long start, long dataLength, int blockCount) {
      this(dataFile, indexFile, null, start, dataLength, blockCount);
    }

    /** A segment on the HDFS tier. */
    public static Generation segment(String uri, long start, long dataLength, int blockCount) {
      return new Generation(null, null, uri, start, dataLength, blockCount);
    }

    public boolean isSegment() {
      return segment != null;
    }
  }

  /** One partition: its generations, and the blocks each map attempt committed. */
  public record Partition(
      int partitionId, List<Generation> generations, long[] attempts, int[] counts) {}

  public record Shuffle(int shuffleId, int numPartitions, List<Partition> partitions) {}

  /** An application; {@code secret} is null when the server did not authenticate. */
  public record Application(String appId, String user, byte[] secret, List<Shuffle> shuffles) {}

  private RestartManifest() {}

  /**
   * Where the record may be: the file in every local dir (it is written to the first that works).
   */
  public static List<Path> locations(List<Path> localDirs) {
    return localDirs.stream().map(dir -> dir.resolve(FILE)).toList();
  }

  /**
   * Writes the record to the first of {@code candidates} where it can be written and returns where;
   * the others are left without one.
   *
   * @throws IOException naming every failure when it can be written nowhere
   */
  public static Path writeToFirstUsable(List<Path> candidates, List<Application> apps)
      throws IOException {
    IOException failures = null;
    for (Path file : candidates) {
      try {
        write(file, apps);
        return file;
      } catch (IOException e) {
        if (failures == null) {
          failures = new IOException("the restart record could be written to no local dir");
        }
        failures.addSuppressed(e);
      }
    }
    throw failures != null ? failures : new IOException("no local dir to write the record to");
  }

  public static void write(Path file, List<Application> apps) throws IOException {
    Path tmp = file.resolveSibling(FILE + ".tmp");
    Files.deleteIfExists(tmp);
    Files.createFile(
        tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE);
        DataOutputStream out =
            new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(channel)))) {
      out.writeLong(MAGIC);
      out.writeInt(VERSION);
      out.writeInt(apps.size());
      for (Application app : apps) {
        writeString(out, app.appId());
        writeString(out, app.user());
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
      out.flush();
      channel.force(true);
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    }
    forceDirectory(file.getParent());
  }

  /** Makes the rename durable (where the platform lets a directory be forced). */
  private static void forceDirectory(Path dir) {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // not every file system lets a directory be opened; the rename stands either way
    }
  }

  /**
   * The applications of the manifest at {@code file}; an empty list when there is none.
   *
   * @throws IOException when it cannot be read or is not a manifest of this version
   */
  public static List<Application> read(Path file) throws IOException {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return List.of();
    }
    checkTrusted(file);
    long size = Files.size(file);
    try (InputStream raw = Files.newInputStream(file);
        DataInputStream in = new DataInputStream(new BufferedInputStream(raw))) {
      int version = in.readLong() == MAGIC ? in.readInt() : -1;
      if (version != VERSION && version != LOCAL_ONLY_VERSION) {
        throw new IOException(
            file
                + " is not a restart manifest of version "
                + LOCAL_ONLY_VERSION
                + " or "
                + VERSION);
      }
      int appCount = count(in, size, 4);
      List<Application> apps = new ArrayList<>();
      for (int a = 0; a < appCount; a++) {
        String appId = readString(in);
        String user = readString(in);
        byte[] secret = readBytes(in);
        int shuffleCount = count(in, size, 12);
        List<Shuffle> shuffles = new ArrayList<>();
        for (int s = 0; s < shuffleCount; s++) {
          int shuffleId = in.readInt();
          int numPartitions = in.readInt();
          int partitionCount = count(in, size, 12);
          List<Partition> partitions = new ArrayList<>();
          for (int p = 0; p < partitionCount; p++) {
            partitions.add(readPartition(in, size, version));
          }
          shuffles.add(new Shuffle(shuffleId, numPartitions, partitions));
        }
        apps.add(new Application(appId, user, secret, shuffles));
      }
      return apps;
    }
  }

  /** Only a record this user wrote, readable by nobody else, names files and secrets to trust. */
  private static void checkTrusted(Path file) throws IOException {
    String owner = Files.getOwner(file, LinkOption.NOFOLLOW_LINKS).getName();
    String self = System.getProperty("user.name");
    Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
    if (!owner.equals(self) || !mode.equals(PosixFilePermissions.fromString("rw-------"))) {
      throw new IOException(
          file
              + " belongs to "
              + owner
              + " with mode "
              + PosixFilePermissions.toString(mode)
              + "; a restart record must be this server's user's ("
              + self
              + ") with mode rw-------");
    }
  }

  private static void writePartition(DataOutputStream out, Partition p) throws IOException {
    out.writeInt(p.partitionId());
    out.writeInt(p.generations().size());
    for (Generation g : p.generations()) {
      if (g.isSegment()) {
        out.writeByte(SEGMENT);
        writeString(out, g.segment());
      } else {
        out.writeByte(LOCAL);
        writeString(out, g.dataFile().toString());
        writeString(out, g.indexFile().toString());
      }
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

  private static Partition readPartition(DataInputStream in, long fileSize, int version)
      throws IOException {
    int partitionId = in.readInt();
    int generationCount = count(in, fileSize, 24);
    List<Generation> generations = new ArrayList<>();
    for (int g = 0; g < generationCount; g++) {
      byte kind = version == LOCAL_ONLY_VERSION ? LOCAL : in.readByte();
      if (kind == SEGMENT) {
        generations.add(
            Generation.segment(readString(in), in.readLong(), in.readLong(), in.readInt()));
      } else if (kind == LOCAL) {
        generations.add(
            new Generation(
                Path.of(readString(in)),
                Path.of(readString(in)),
                in.readLong(),
                in.readLong(),
                in.readInt()));
      } else {
        throw new IOException("a generation of kind " + kind + " in the restart manifest");
      }
    }
    int commits = count(in, fileSize, 12);
    long[] attempts = new long[commits];
    int[] counts = new int[commits];
    for (int i = 0; i < commits; i++) {
      attempts[i] = in.readLong();
      counts[i] = in.readInt();
    }
    return new Partition(partitionId, generations, attempts, counts);
  }

  private static void writeString(DataOutputStream out, String s) throws IOException {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_STRING_BYTES) {
      throw new IOException("a string of " + bytes.length + " bytes cannot be recorded");
    }
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static String readString(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > MAX_STRING_BYTES) {
      throw new IOException("a string of " + n + " bytes in the restart manifest");
    }
    byte[] bytes = new byte[n];
    in.readFully(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
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

  /**
   * A count of entries that take at least {@code entryBytes} each: no more than the file can hold,
   * so that nothing is allocated for what a damaged or hostile record claims.
   */
  private static int count(DataInputStream in, long fileSize, int entryBytes) throws IOException {
    int n = in.readInt();
    if (n < 0 || (long) n * entryBytes > fileSize) {
      throw new IOException(
          "a count of " + n + " in the restart manifest of " + fileSize + " bytes");
    }
    return n;
  }
}
