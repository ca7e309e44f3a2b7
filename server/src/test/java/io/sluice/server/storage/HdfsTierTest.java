package io.sluice.server.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.shuffle.IndexEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HDFS tier on Hadoop's local file system (a Hadoop-compatible file system like any other to
 * the tier; MiniDFSCluster runs in the integration tests): where batches go, how a partition spread
 * over local files and segments reads back as one, and what deletion and a restart remove.
 */
class HdfsTierTest {
  @TempDir Path tmp;
  private final AtomicLong usable = new AtomicLong(Long.MAX_VALUE);
  private final AtomicLong nanoTime = new AtomicLong();
  private DiskManager disks;
  private HdfsTier hdfs;

  @BeforeEach
  void setUp() throws IOException {
    disks =
        new DiskManager(
            List.of(tmp.resolve("disk")),
            0,
            1,
            FileIo.DEFAULT,
            root -> usable.get(),
            nanoTime::get);
    hdfs = open(Set.of());
  }

  @AfterEach
  void tearDown() throws IOException {
    disks.close();
    hdfs.close();
  }

  private HdfsTier open(Set<String> keep) throws IOException {
    return HdfsTier.open(
        tmp.resolve("hdfs").toUri().toString(), "host-1", List.of(tmp.resolve("disk")), 1, 1, keep);
  }

  private Path hdfsRoot() {
    return Path.of(hdfs.root().toUri());
  }

  @Test
  void aPartitionPastTheThresholdGoesOnOnHdfsAndReadsBackAsOne() throws Exception {
    long threshold = Blocks.totalLength(0, 20);
    PartitionFiles partition =
        new PartitionFiles(disks, hdfs, threshold, FileIo.DEFAULT, "app-1", 3, 7);
    Blocks.append(partition, 0, 10);
    assertSame(
        disks.disks().get(0).flushExecutor(),
        partition.flushExecutor(),
        "below the threshold the next flush goes to the local dir");
    Blocks.append(partition, 10, 10);
    assertSame(hdfs.flushExecutor(), partition.flushExecutor(), "the threshold is reached");
    Blocks.append(partition, 20, 10);
    Blocks.append(partition, 30, 10);

    assertFalse(partition.isRemote(0));
    assertFalse(partition.isRemote(threshold - 1));
    assertTrue(partition.isRemote(threshold));
    assertTrue(partition.snapshot().indexIsRemote(), "the index has entries on HDFS");
    assertEquals(40L * IndexEntry.SIZE, partition.snapshot().indexBytes());
    assertEquals(Blocks.totalLength(0, 40), partition.dataLength());
    assertArrayEquals(Blocks.expected(0, 40), Blocks.readAllData(partition));
    List<IndexEntry> entries = Blocks.decodeIndex(partition.index());
    assertEquals(40, entries.size());
    Blocks.assertEntries(partition, entries, 0, 0);

    try (Stream<Path> files = Files.list(hdfsRoot().resolve("app-1").resolve("3"))) {
      assertEquals(
          List.of("7-1.segment", "7-2.segment"),
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".segment"))
              .sorted()
              .toList(),
          "one segment file per batch on HDFS");
    }
    assertEquals(
        List.of(tmp.resolve("disk/app-1/3/7-0.data"), tmp.resolve("disk/app-1/3/7-0.index")),
        partition.files(),
        "the local generation");
  }

  @Test
  void batchesThatNoLocalDirCanTakeGoToHdfsAndTheNextGoesBackWhenOneCan() throws Exception {
    Path disk = tmp.resolve("disk");
    FaultyFileIo io = new FaultyFileIo();
    PartitionFiles partition = new PartitionFiles(disks, hdfs, Long.MAX_VALUE, io, "app-1", 0, 2);
    Blocks.append(partition, 0, 5);
    // The disk fills up: the next write fails as a full disk's does, and nothing else has room.
    io.failWritesAfter(disk, 0, "No space left on device");
    usable.set(0);
    Blocks.append(partition, 5, 5);
    assertEquals(DiskManager.DISK_FULL, disks.disks().get(0).unhealthyReason());
    assertSame(hdfs.flushExecutor(), partition.flushExecutor(), "no local dir has room");
    io.heal(disk);
    usable.set(Long.MAX_VALUE);
    nanoTime.addAndGet(TimeUnit.MINUTES.toNanos(1)); // a full disk is looked at again after a while
    Blocks.append(partition, 10, 5);

    assertFalse(partition.isRemote(0));
    assertTrue(partition.isRemote(Blocks.totalLength(0, 5)));
    assertFalse(partition.isRemote(Blocks.totalLength(0, 10)), "back on the local dir");
    assertArrayEquals(Blocks.expected(0, 15), Blocks.readAllData(partition));
    Blocks.assertEntries(partition, Blocks.decodeIndex(partition.index()), 0, 0);
  }

  @Test
  void aPartitionPastTheThresholdStaysLocalWhileHdfsTakesNothing() throws Exception {
    PartitionFiles partition = new PartitionFiles(disks, hdfs, 0, FileIo.DEFAULT, "app-1", 0, 1);
    hdfs.markUnwritable(new IOException("name node unreachable"));
    assertSame(disks.disks().get(0).flushExecutor(), partition.flushExecutor());
    Blocks.append(partition, 0, 5);
    assertFalse(partition.isRemote(0));
    assertArrayEquals(Blocks.expected(0, 5), Blocks.readAllData(partition));
  }

  @Test
  void withoutLocalRoomOrHdfsNothingCanTakeAFlush() {
    PartitionFiles partition = new PartitionFiles(disks, FileIo.DEFAULT, "app-1", 0, 0);
    usable.set(0);
    assertEquals(null, partition.flushExecutor());
  }

  @Test
  void deletingAShuffleOrApplicationRemovesItsDirectoryOnHdfs() throws Exception {
    for (int shuffle = 0; shuffle < 2; shuffle++) {
      PartitionFiles partition =
          new PartitionFiles(disks, hdfs, 0, FileIo.DEFAULT, "app-1", shuffle, 0);
      Blocks.append(partition, 0, 3);
    }
    Path app = hdfsRoot().resolve("app-1");
    assertTrue(Files.isDirectory(app.resolve("0")));
    hdfs.deleteShuffle("app-1", 0);
    assertTrue(hdfs.awaitDeletions(30, TimeUnit.SECONDS));
    assertFalse(Files.exists(app.resolve("0")), "the shuffle's segments are gone");
    assertTrue(Files.isDirectory(app.resolve("1")), "the other shuffle stays");

    hdfs.deleteApplication("app-1");
    assertTrue(hdfs.awaitDeletions(30, TimeUnit.SECONDS));
    assertFalse(Files.exists(app));
    try (Stream<Path> trash = Files.list(hdfsRoot().resolve(DiskManager.TRASH))) {
      assertEquals(0, trash.count(), "the trash is emptied");
    }
  }

  @Test
  void aShuffleWithNothingOnHdfsIsDeletedWithoutAskingIt() throws Exception {
    Blocks.append(new PartitionFiles(disks, FileIo.DEFAULT, "app-1", 0, 0), 0, 2);
    hdfs.deleteShuffle("app-1", 0);
    hdfs.deleteApplication("app-1");
    assertTrue(hdfs.awaitDeletions(30, TimeUnit.SECONDS));
    assertFalse(
        Files.exists(hdfsRoot().resolve(DiskManager.TRASH)),
        "nothing was moved into the tier's trash: the name node was not asked");
  }

  @Test
  void segmentsLeftByAPartitionThatARestartDroppedDoNotStopTheTier() throws Exception {
    Blocks.append(new PartitionFiles(disks, hdfs, 0, FileIo.DEFAULT, "app-1", 0, 3), 0, 4);
    // A restart could not serve the partition again: it starts over, under the same names.
    PartitionFiles again = new PartitionFiles(disks, hdfs, 0, FileIo.DEFAULT, "app-1", 0, 3);
    Blocks.append(again, 100, 2);
    assertTrue(hdfs.isWritable(), "a name taken by a file nobody reads is no failure of the tier");
    assertArrayEquals(Blocks.expected(100, 2), Blocks.readAllData(again));
    Blocks.assertEntries(again, Blocks.decodeIndex(again.index()), 100, 0);
  }

  @Test
  void aStartDeletesWhatAnEarlierRunLeftButKeepsRecoveredApplicationsAndForeignFiles()
      throws Exception {
    for (String app : List.of("app-old", "app-kept")) {
      Blocks.append(new PartitionFiles(disks, hdfs, 0, FileIo.DEFAULT, app, 0, 0), 0, 2);
    }
    Path foreign = Files.createDirectories(hdfsRoot().resolve("operator-data").resolve("17"));
    Files.writeString(foreign.resolve("keep-me"), "not Sluice's");
    hdfs.close();

    hdfs = open(Set.of("app-kept"));
    assertFalse(Files.exists(hdfsRoot().resolve("app-old")));
    assertTrue(Files.isDirectory(hdfsRoot().resolve("app-kept").resolve("0")));
    assertEquals("not Sluice's", Files.readString(foreign.resolve("keep-me")));
  }

  @Test
  void segmentsAreRecordedForARestartAndServedAgainAfterIt() throws Exception {
    long threshold = Blocks.totalLength(0, 10);
    PartitionFiles partition =
        new PartitionFiles(disks, hdfs, threshold, FileIo.DEFAULT, "app-1", 0, 4);
    Blocks.append(partition, 0, 10);
    Blocks.append(partition, 10, 10);
    Blocks.append(partition, 20, 10);
    Path record = tmp.resolve("record");
    RestartManifest.write(
        record,
        List.of(
            new RestartManifest.Application(
                "app-1",
                "user",
                null,
                List.of(
                    new RestartManifest.Shuffle(
                        0,
                        8,
                        List.of(
                            new RestartManifest.Partition(
                                4,
                                partition.generationsForRestart(),
                                new long[0],
                                new int[0])))))));
    List<RestartManifest.Generation> recorded =
        RestartManifest.read(record).get(0).shuffles().get(0).partitions().get(0).generations();
    assertEquals(
        List.of(false, true, true),
        recorded.stream().map(RestartManifest.Generation::isSegment).toList());

    hdfs.close();
    hdfs = open(Set.of("app-1"));
    PartitionFiles again =
        new PartitionFiles(disks, hdfs, threshold, FileIo.DEFAULT, "app-1", 0, 4);
    again.restore(recorded);
    assertArrayEquals(Blocks.expected(0, 30), Blocks.readAllData(again));
    Blocks.assertEntries(again, Blocks.decodeIndex(again.index()), 0, 0);
    Blocks.append(again, 30, 5);
    assertTrue(
        Files.exists(hdfsRoot().resolve("app-1/0/4-3.segment")),
        "the next segment takes the next name");
    assertArrayEquals(Blocks.expected(0, 35), Blocks.readAllData(again));

    // A segment that no longer holds what was recorded is refused, and nothing is restored.
    Path segment = hdfsRoot().resolve("app-1/0/4-2.segment");
    Files.write(segment, new byte[10]);
    PartitionFiles damaged =
        new PartitionFiles(disks, hdfs, threshold, FileIo.DEFAULT, "app-1", 0, 4);
    IOException refused = assertThrows(IOException.class, () -> damaged.restore(recorded));
    assertTrue(refused.getMessage().contains("holds 10 bytes"), refused.getMessage());
    assertEquals(0, damaged.dataLength());
    // One of another partition is refused as well.
    PartitionFiles other =
        new PartitionFiles(disks, hdfs, threshold, FileIo.DEFAULT, "app-1", 0, 5);
    assertThrows(IOException.class, () -> other.restore(recorded));
  }

  @Test
  void eachServerHasADirectoryOfItsOwnThatOutlivesItsRestarts() {
    String name = HdfsTier.serverDirName("host-1", List.of(Path.of("/data/a"), Path.of("/data/b")));
    assertEquals(
        name,
        HdfsTier.serverDirName("host-1", List.of(Path.of("/data/b"), Path.of("/data/a/"))),
        "stable whatever the order");
    assertNotEquals(name, HdfsTier.serverDirName("host-1", List.of(Path.of("/data/c"))));
    assertNotEquals(
        name, HdfsTier.serverDirName("host-2", List.of(Path.of("/data/a"), Path.of("/data/b"))));
    assertTrue(
        HdfsTier.serverDirName("bad/host:1", List.of(Path.of("/d"))).startsWith("bad_host_1-"));
  }
}
