package io.sluice.server.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.shuffle.IndexEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskManagerTest {
  private static final long GIB = 1L << 30;

  @TempDir Path tmp;
  private final List<DiskManager> managers = new ArrayList<>();
  private final Map<Path, Long> usable = new ConcurrentHashMap<>();
  private final AtomicLong clock = new AtomicLong();

  @AfterEach
  void tearDown() {
    managers.forEach(DiskManager::close);
  }

  private DiskManager manager(long minFree, FileIo io, Path... dirs) {
    DiskManager manager =
        new DiskManager(
            List.of(dirs),
            minFree,
            1,
            io,
            root -> usable.getOrDefault(root, 100 * GIB),
            clock::get);
    managers.add(manager);
    return manager;
  }

  private Path dir(String name) {
    return tmp.resolve(name).toAbsolutePath().normalize();
  }

  @Test
  void createsItsDirectoriesAndNamesFlushThreadsAfterThem() throws Exception {
    DiskManager manager =
        new DiskManager(List.of(dir("a/disk1"), dir("disk2")), 0, 2, FileIo.DEFAULT);
    managers.add(manager);
    assertEquals(
        List.of(dir("a/disk1"), dir("disk2")),
        manager.disks().stream().map(LocalDisk::root).toList());
    for (LocalDisk disk : manager.disks()) {
      assertTrue(Files.isDirectory(disk.root()));
      assertTrue(disk.isHealthy());
      assertNull(disk.unhealthyReason());
      assertTrue(disk.totalBytes() > 0);
      assertTrue(disk.usableBytes() > 0);
      try (Stream<Path> left = Files.list(disk.root())) {
        assertEquals(0, left.count(), "the write probe leaves nothing behind");
      }
    }
    String[] names = new String[2];
    CountDownLatch bothRunning = new CountDownLatch(2);
    for (int i = 0; i < 2; i++) {
      int slot = i;
      manager
          .disks()
          .get(0)
          .flushExecutor()
          .execute(
              () -> {
                names[slot] = Thread.currentThread().getName();
                bothRunning.countDown();
                await(bothRunning);
              });
    }
    assertTrue(bothRunning.await(10, TimeUnit.SECONDS), "two threads per disk");
    manager.close();
    assertEquals(
        List.of("sluice-flush-disk1-0", "sluice-flush-disk1-1"),
        Stream.of(names).sorted().toList());
  }

  @Test
  void picksTheHealthyDiskWithMostRoomAboveMinimumFree() {
    Path a = dir("a");
    Path b = dir("b");
    Path c = dir("c");
    usable.put(a, 5 * GIB);
    usable.put(b, 8 * GIB);
    usable.put(c, 500L << 20);
    DiskManager manager = manager(GIB, FileIo.DEFAULT, a, b, c);
    assertEquals(b, manager.pick().root());
    usable.put(b, 4 * GIB);
    assertEquals(a, manager.pick().root(), "free space is looked at on every pick");
    usable.put(a, GIB - 1);
    usable.put(b, GIB);
    assertEquals(b, manager.pick().root(), "exactly the minimum is enough");
    usable.put(b, GIB - 1);
    assertNull(manager.pick(), "no disk has the minimum free");
  }

  @Test
  void partitionsSpreadByFreeSpace() throws Exception {
    Path a = dir("a");
    Path b = dir("b");
    Map<Path, Long> capacity = Map.of(a, 3L << 20, b, 2L << 20);
    DiskManager manager =
        new DiskManager(
            List.of(a, b),
            0,
            1,
            FileIo.DEFAULT,
            root -> capacity.get(root) - treeSize(root),
            clock::get);
    managers.add(manager);
    long largestPartition = 0;
    for (int p = 0; p < 40; p++) {
      PartitionFiles partition = new PartitionFiles(manager, FileIo.DEFAULT, "app", 0, p);
      List<TestBlock> blocks = Blocks.make(p * 10L, 10);
      try {
        partition.append(blocks);
      } finally {
        Blocks.release(blocks);
      }
      largestPartition = Math.max(largestPartition, partition.dataLength() + 10L * IndexEntry.SIZE);
    }
    long freeA = capacity.get(a) - treeSize(a);
    long freeB = capacity.get(b) - treeSize(b);
    assertTrue(treeSize(b) > 0, "the smaller disk got partitions too");
    assertTrue(treeSize(a) > treeSize(b), "the larger disk got more");
    assertTrue(
        Math.abs(freeA - freeB) <= largestPartition,
        "free space evened out: " + freeA + " vs " + freeB);
  }

  @Test
  void aDirectoryThatCannotBeCreatedIsOutFromTheStart() throws Exception {
    Path file = Files.writeString(tmp.resolve("plain-file"), "x");
    Path impossible = file.resolve("disk");
    Path good = dir("good");
    DiskManager manager = manager(0, FileIo.DEFAULT, impossible, good);
    LocalDisk bad = manager.disks().get(0);
    assertFalse(bad.isHealthy());
    assertNotNull(bad.unhealthyReason());
    assertTrue(bad.unhealthyReason().contains("plain-file"), bad.unhealthyReason());
    for (int i = 0; i < 5; i++) {
      assertEquals(good, manager.pick().root());
    }
  }

  @Test
  void aReadOnlyDirectoryIsOutFromTheStart() throws Exception {
    Path readOnly = dir("read-only");
    Path good = dir("good");
    usable.put(readOnly, 200 * GIB);
    Files.createDirectories(readOnly);
    Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r-xr-xr-x"));
    FaultyFileIo io = new FaultyFileIo();
    if (chmodIsIgnored(readOnly)) {
      // Running as root: permissions do not stop writes, so the file system's answer is injected.
      io.failOpen(readOnly, readOnly + ": Permission denied");
    }
    try {
      DiskManager manager = manager(0, io, readOnly, good);
      LocalDisk disk = manager.disks().get(0);
      assertFalse(disk.isHealthy());
      assertTrue(disk.unhealthyReason().contains("read-only"), disk.unhealthyReason());
      assertEquals(good, manager.pick().root(), "the read-only dir is not picked despite its room");
      clock.addAndGet(TimeUnit.MINUTES.toNanos(5));
      assertEquals(good, manager.pick().root(), "a failed dir stays out");
    } finally {
      Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
  }

  @Test
  void aFullDiskComesBackOnlyWhenItHasRoomAgain() {
    Path a = dir("a");
    Path b = dir("b");
    usable.put(a, 10 * GIB);
    usable.put(b, 5 * GIB);
    DiskManager manager = manager(GIB, FileIo.DEFAULT, a, b);
    LocalDisk diskA = manager.disks().get(0);
    manager.markUnhealthy(diskA, DiskManager.DISK_FULL);
    manager.markUnhealthy(diskA, "a second report changes nothing");
    assertEquals(DiskManager.DISK_FULL, diskA.unhealthyReason());
    assertEquals(b, manager.pick().root());

    clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
    assertEquals(b, manager.pick().root(), "not re-checked within a few seconds");

    usable.put(a, GIB / 2);
    clock.addAndGet(TimeUnit.SECONDS.toNanos(10));
    assertEquals(b, manager.pick().root(), "still below the minimum");
    assertFalse(diskA.isHealthy());

    usable.put(a, 10 * GIB);
    clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
    assertEquals(b, manager.pick().root(), "the last check was a second ago");
    clock.addAndGet(TimeUnit.SECONDS.toNanos(5));
    assertSame(diskA, manager.pick(), "back in rotation");
    assertTrue(diskA.isHealthy());
    assertNull(diskA.unhealthyReason());

    manager.markUnhealthy(diskA, "IOException: Input/output error");
    clock.addAndGet(TimeUnit.MINUTES.toNanos(10));
    assertEquals(b, manager.pick().root(), "a disk with I/O errors does not come back");
  }

  @Test
  void aFullDiskThatThenFailsForReadsNeverComesBack() {
    Path a = dir("a");
    Path b = dir("b");
    usable.put(a, 10 * GIB);
    usable.put(b, 5 * GIB);
    DiskManager manager = manager(GIB, FileIo.DEFAULT, a, b);
    LocalDisk diskA = manager.disks().get(0);
    manager.markUnhealthy(diskA, DiskManager.DISK_FULL);
    manager.markUnreadable(diskA, "IOException: Input/output error");
    assertTrue(diskA.isUnreadable());
    clock.addAndGet(TimeUnit.MINUTES.toNanos(10));
    assertEquals(b, manager.pick().root(), "room again, but its files cannot be read");
    assertFalse(diskA.isHealthy());
  }

  @Test
  void classifiesFailures() {
    assertEquals(
        DiskManager.DISK_FULL, DiskManager.reasonFor(new IOException("No space left on device")));
    assertEquals(
        DiskManager.DISK_FULL, DiskManager.reasonFor(new IOException("Disk quota exceeded")));
    assertEquals(
        "IOException: Input/output error",
        DiskManager.reasonFor(new IOException("Input/output error")));
    assertEquals("java.io.IOException", DiskManager.reasonFor(new IOException()));
  }

  @Test
  void restartDeletesLeftoverApplicationsAndNothingElse() throws Exception {
    Path root = dir("disk");
    Files.createDirectories(root.resolve("app-1/0"));
    Files.writeString(root.resolve("app-1/0/0-0.data"), "old data");
    Files.createDirectories(root.resolve("app-2/3"));
    Files.createDirectories(root.resolve("app-3"));
    for (String app : List.of("app-1", "app-2", "app-3")) {
      Files.createFile(root.resolve(app).resolve(DiskManager.APP_MARKER));
    }
    // Shaped like an application's directory, but not made by a server: an operator's data.
    Files.createDirectories(root.resolve("2024/11"));
    Files.writeString(root.resolve("2024/11/report.csv"), "not ours");
    Files.writeString(root.resolve("notes.txt"), "not ours");
    Files.createDirectories(root.resolve("foreign"));
    Files.writeString(root.resolve("foreign/file.txt"), "not ours");
    Files.createDirectories(root.resolve("other/not-a-shuffle"));
    Path target = Files.createDirectories(dir("outside"));
    Files.writeString(target.resolve("keep.txt"), "outside");
    Files.writeString(target.resolve(DiskManager.APP_MARKER), "");
    Files.createSymbolicLink(root.resolve("app-4"), target);
    Files.createDirectories(root.resolve("app-5"));
    Files.createSymbolicLink(
        root.resolve("app-5").resolve(DiskManager.APP_MARKER),
        target.resolve(DiskManager.APP_MARKER));

    manager(0, FileIo.DEFAULT, root);

    for (String gone : List.of("app-1", "app-2", "app-3")) {
      assertFalse(Files.exists(root.resolve(gone)), gone + " deleted");
    }
    assertTrue(Files.exists(root.resolve("2024/11/report.csv")), "no marker, not ours");
    assertTrue(Files.exists(root.resolve("notes.txt")));
    assertTrue(Files.exists(root.resolve("foreign/file.txt")));
    assertTrue(Files.exists(root.resolve("other/not-a-shuffle")));
    assertTrue(Files.exists(root.resolve("app-4")), "a link to a directory is never ours");
    assertTrue(Files.exists(root.resolve("app-5")), "a linked marker is no marker");
    assertTrue(Files.exists(target.resolve("keep.txt")), "links are never followed");
  }

  @Test
  void aWrittenPartitionsApplicationDirectoryCarriesTheMarker() throws Exception {
    Path root = dir("marked");
    DiskManager manager = manager(0, FileIo.DEFAULT, root);
    LocalDisk disk = manager.disks().get(0);
    manager.createShuffleDir(disk, "app-m", 3);
    manager.createShuffleDir(disk, "app-m", 4);
    assertTrue(Files.isRegularFile(root.resolve("app-m").resolve(DiskManager.APP_MARKER)));
    assertTrue(Files.isDirectory(manager.shuffleDir(disk, "app-m", 4)));
  }

  @Test
  void deletesShufflesAndApplicationsOnEveryDisk() throws Exception {
    Path a = dir("a");
    Path b = dir("b");
    DiskManager manager = manager(0, FileIo.DEFAULT, a, b);
    List<PartitionFiles> partitions = new ArrayList<>();
    int p = 0;
    for (Path preferred : List.of(a, b)) {
      usable.put(preferred, 200 * GIB);
      for (int shuffle = 0; shuffle < 2; shuffle++) {
        PartitionFiles partition = new PartitionFiles(manager, FileIo.DEFAULT, "app", shuffle, p++);
        List<TestBlock> blocks = Blocks.make(p * 10L, 3);
        try {
          partition.append(blocks);
        } finally {
          Blocks.release(blocks);
        }
        partitions.add(partition);
      }
      usable.remove(preferred);
    }
    PartitionFiles otherApp = new PartitionFiles(manager, FileIo.DEFAULT, "other-app", 0, 0);
    List<TestBlock> blocks = Blocks.make(0, 2);
    try {
      otherApp.append(blocks);
    } finally {
      Blocks.release(blocks);
    }
    for (LocalDisk disk : manager.disks()) {
      assertTrue(Files.isDirectory(manager.shuffleDir(disk, "app", 0)));
      assertTrue(Files.isDirectory(manager.shuffleDir(disk, "app", 1)));
    }

    manager.deleteShuffle("app", 0);
    for (LocalDisk disk : manager.disks()) {
      assertFalse(Files.exists(manager.shuffleDir(disk, "app", 0)));
      assertTrue(Files.isDirectory(manager.shuffleDir(disk, "app", 1)));
    }
    manager.deleteShuffle("app", 0);

    manager.deleteApplication("app");
    for (LocalDisk disk : manager.disks()) {
      assertFalse(Files.exists(disk.root().resolve("app")));
    }
    for (PartitionFiles partition : partitions) {
      for (Path file : partition.files()) {
        assertFalse(Files.exists(file));
      }
    }
    for (Path file : otherApp.files()) {
      assertTrue(Files.exists(file), "other applications keep their files");
    }
    manager.deleteApplication("never-registered");
    assertTrue(manager.awaitDeletions(java.time.Duration.ofMinutes(1)));
    for (LocalDisk disk : manager.disks()) {
      Path trash = disk.root().resolve(DiskManager.TRASH);
      try (var left = Files.list(trash)) {
        assertEquals(0, left.count(), "the trash is emptied in the background");
      }
    }
  }

  @Test
  void aDirectoryNamedLikeAnApplicationThatSluiceDidNotCreateIsNeverDeleted() throws Exception {
    DiskManager manager = manager(0, FileIo.DEFAULT, dir("a"));
    Path root = manager.disks().get(0).root();
    // Something else's directory in the local dir, named as a client may name its application.
    Path foreign = Files.createDirectories(root.resolve("backup").resolve("0"));
    Path file = Files.writeString(foreign.resolve("keep.txt"), "not Sluice's");

    manager.deleteShuffle("backup", 0);
    manager.deleteApplication("backup");
    assertTrue(manager.awaitDeletions(java.time.Duration.ofMinutes(1)));

    assertTrue(Files.exists(file), "only directories with Sluice's marker are deleted");
  }

  @Test
  void theTrashCannotBeAnApplicationsDirectoryAndIsEmptiedAtStart() throws Exception {
    assertFalse(SafeNames.isValidAppId(DiskManager.TRASH));
    Path root = tmp.resolve("trash-at-start");
    Path left = root.resolve(DiskManager.TRASH).resolve("app-1-7").resolve("0");
    Files.createDirectories(left);
    Files.writeString(left.resolve("0.data"), "left by a server that stopped mid-deletion");
    DiskManager manager = new DiskManager(List.of(root), 0, 1, FileIo.DEFAULT);
    try {
      assertFalse(Files.exists(root.resolve(DiskManager.TRASH)));
    } finally {
      manager.close();
    }
  }

  @Test
  void pathsAreNeverBuiltFromUncheckedNames() {
    DiskManager manager = manager(0, FileIo.DEFAULT, dir("disk"));
    LocalDisk disk = manager.disks().get(0);
    assertThrows(IllegalArgumentException.class, () -> manager.shuffleDir(disk, "../x", 0));
    assertThrows(IllegalArgumentException.class, () -> manager.shuffleDir(disk, "app", -1));
    assertThrows(IllegalArgumentException.class, () -> manager.deleteShuffle("..", 0));
    assertThrows(IllegalArgumentException.class, () -> manager.deleteApplication("a/b"));
    assertEquals(disk.root().resolve("app-7").resolve("12"), manager.shuffleDir(disk, "app-7", 12));
  }

  @Test
  void rejectsUnusableConfigurations() {
    assertThrows(
        IllegalArgumentException.class, () -> new DiskManager(List.of(), 0, 1, FileIo.DEFAULT));
    assertThrows(
        IllegalArgumentException.class,
        () -> new DiskManager(List.of(dir("a"), dir("a/b")), 0, 1, FileIo.DEFAULT));
    assertThrows(
        IllegalArgumentException.class,
        () -> new DiskManager(List.of(dir("a"), tmp.resolve("x/../a")), 0, 1, FileIo.DEFAULT));
    assertThrows(
        IllegalArgumentException.class,
        () -> new DiskManager(List.of(dir("a")), 0, 0, FileIo.DEFAULT));
    assertThrows(
        IllegalArgumentException.class,
        () -> new DiskManager(List.of(dir("a")), -1, 1, FileIo.DEFAULT));
  }

  @Test
  void closeLetsQueuedFlushesFinish() {
    DiskManager manager = manager(0, FileIo.DEFAULT, dir("a"), dir("b"));
    AtomicInteger done = new AtomicInteger();
    for (LocalDisk disk : manager.disks()) {
      for (int i = 0; i < 5; i++) {
        disk.flushExecutor()
            .execute(
                () -> {
                  sleep(20);
                  done.incrementAndGet();
                });
      }
    }
    manager.close();
    assertEquals(10, done.get());
    manager.close();
  }

  private static boolean chmodIsIgnored(Path readOnlyDir) throws IOException {
    Path probe = readOnlyDir.resolve("chmod-probe");
    try {
      Files.createFile(probe);
    } catch (IOException e) {
      return false;
    }
    Files.delete(probe);
    return true;
  }

  private static long treeSize(Path root) {
    if (!Files.exists(root)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(Files::isRegularFile)
          .mapToLong(
              f -> {
                try {
                  return Files.size(f);
                } catch (IOException e) {
                  return 0;
                }
              })
          .sum();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
