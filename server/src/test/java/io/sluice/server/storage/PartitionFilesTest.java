package io.sluice.server.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.common.buffer.FileSegmentManagedBuffer;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.shuffle.IndexEntry;
import io.sluice.server.memory.ReadBudget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionFilesTest {
  @TempDir Path tmp;
  private DiskManager disks;

  @BeforeEach
  void setUp() {
    disks = new DiskManager(List.of(tmp.resolve("disk")), 0, 1, FileIo.DEFAULT);
  }

  @AfterEach
  void tearDown() {
    disks.close();
  }

  private PartitionFiles partition(int id) {
    return new PartitionFiles(disks, FileIo.DEFAULT, "app-1", 3, id);
  }

  @Test
  void manyBlocksReadBackByteIdentical() throws Exception {
    PartitionFiles partition = partition(7);
    for (int batch = 0; batch < 6; batch++) {
      Blocks.append(partition, batch * 50L, 50);
    }
    byte[] expected = Blocks.expected(0, 300);
    assertEquals(expected.length, partition.dataLength());
    assertEquals(300, partition.blockCount());

    assertArrayEquals(expected, Blocks.readAllData(partition));
    assertArrayEquals(
        expected,
        Blocks.readRegion(partition.data(0, expected.length)),
        "sent with sendfile, the data is the same");
    int middle = expected.length / 2;
    byte[] tail = Blocks.readRegion(partition.data(middle, expected.length - middle));
    assertEquals(expected.length - middle, tail.length);
    assertEquals(expected[middle], tail[0]);

    Path dataFile = partition.files().get(0);
    assertEquals(tmp.resolve("disk").resolve("app-1").resolve("3").resolve("7-0.data"), dataFile);
    assertEquals(expected.length, Files.size(dataFile));
  }

  @Test
  void indexEntriesCarryWhatWasAppendedWithLogicalOffsets() throws Exception {
    PartitionFiles partition = partition(0);
    Blocks.append(partition, 1000, 20);
    Blocks.append(partition, 1020, 25);

    ManagedBuffer index = partition.index();
    FileSegmentManagedBuffer segment = assertInstanceOf(FileSegmentManagedBuffer.class, index);
    assertEquals(45L * IndexEntry.SIZE, segment.size());
    List<IndexEntry> entries = Blocks.decodeIndex(index);
    assertEquals(45, entries.size());
    Blocks.assertEntries(partition, entries, 1000, 0);

    byte[] viaStream = Blocks.readStream(partition.index());
    assertArrayEquals(viaStream, Blocks.readRegion(partition.index()), "index sent with sendfile");
  }

  @Test
  void emptyPartitionReadsAsEmpty() throws Exception {
    PartitionFiles partition = partition(1);
    partition.append(List.of());
    assertEquals(0, partition.dataLength());
    assertEquals(0, partition.blockCount());
    assertTrue(partition.files().isEmpty());
    assertEquals(0, Blocks.readStream(partition.index()).length);
    assertEquals(0, Blocks.readStream(partition.data(0, 0)).length);
  }

  @Test
  void rangesOutsideTheDataAreRejected() throws Exception {
    PartitionFiles partition = partition(2);
    Blocks.append(partition, 0, 5);
    long length = partition.dataLength();
    for (long[] range :
        new long[][] {{-1, 1}, {0, length + 1}, {length, 1}, {5, -1}, {Long.MAX_VALUE, 1}}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> partition.data(range[0], (int) range[1]));
      assertTrue(
          e.getMessage().contains("outside the " + length + " readable bytes"), e.getMessage());
    }
    assertEquals(0, Blocks.readStream(partition.data(length, 0)).length);
    assertEquals(1, Blocks.readStream(partition.data(length - 1, 1)).length);
  }

  @Test
  void holdsNoDescriptorsAndDeleteRemovesItsFiles() throws Exception {
    assumeTrue(OpenFiles.supported(), "needs /proc/self/fd");
    PartitionFiles partition = partition(4);
    Blocks.append(partition, 0, 30);
    Blocks.append(partition, 30, 30);
    Blocks.readAllData(partition);
    Blocks.readRegion(partition.data(0, (int) partition.dataLength()));
    Blocks.decodeIndex(partition.index());
    assertEquals(List.of(), OpenFiles.under(tmp), "no file left open after appends and reads");

    List<Path> files = partition.files();
    assertEquals(2, files.size());
    for (Path file : files) {
      assertTrue(Files.exists(file));
    }
    partition.delete();
    for (Path file : files) {
      assertFalse(Files.exists(file), file + " deleted");
    }
    assertEquals(0, partition.dataLength());
    assertEquals(0, partition.blockCount());
    assertTrue(partition.files().isEmpty());

    Blocks.append(partition, 60, 3);
    assertEquals(0, partition.dataLength(), "appends after delete are discarded");
    for (Path file : files) {
      assertFalse(Files.exists(file), file + " not recreated");
    }
  }

  @Test
  void concurrentReadersOnlySeeCompleteBlocks() throws Exception {
    PartitionFiles partition = partition(5);
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger checkedBlocks = new AtomicInteger();
    ExecutorService readers = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> results = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        results.add(
            readers.submit(
                () -> {
                  do {
                    List<IndexEntry> entries = Blocks.decodeIndex(partition.index());
                    long readable = partition.dataLength();
                    long expectedOffset = 0;
                    for (IndexEntry entry : entries) {
                      assertEquals(expectedOffset, entry.offset());
                      assertTrue(
                          entry.offset() + entry.length() <= readable,
                          "an indexed block is readable");
                      expectedOffset += entry.length();
                    }
                    if (!entries.isEmpty()) {
                      IndexEntry last = entries.get(entries.size() - 1);
                      assertArrayEquals(
                          Blocks.contents(Blocks.idOf(last)),
                          Blocks.readStream(partition.data(last.offset(), last.length())));
                      checkedBlocks.incrementAndGet();
                    }
                  } while (writing.get());
                  return null;
                }));
      }
      CompletableFuture<Void> writer =
          CompletableFuture.runAsync(
              () -> {
                try {
                  for (int batch = 0; batch < 60; batch++) {
                    Blocks.append(partition, batch * 10L, 10);
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                } finally {
                  writing.set(false);
                }
              });
      writer.get(60, TimeUnit.SECONDS);
      for (Future<?> result : results) {
        result.get(60, TimeUnit.SECONDS);
      }
    } finally {
      readers.shutdownNow();
    }
    assertTrue(checkedBlocks.get() > 0);
    Blocks.assertEntries(partition, Blocks.decodeIndex(partition.index()), 0, 0);
  }

  @Test
  void rejectsUnsafeOrNegativeIds() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new PartitionFiles(disks, FileIo.DEFAULT, "../app", 0, 0));
    assertThrows(
        IllegalArgumentException.class,
        () -> new PartitionFiles(disks, FileIo.DEFAULT, "app", -1, 0));
    assertThrows(
        IllegalArgumentException.class,
        () -> new PartitionFiles(disks, FileIo.DEFAULT, "app", 0, -1));
  }

  @Test
  void shuffleDeletedUnderAFlushDiscardsWithoutBlamingTheDisk() throws Exception {
    PartitionFiles partition = partition(6);
    Blocks.append(partition, 0, 3);
    disks.deleteShuffle("app-1", 3);
    Blocks.append(partition, 3, 3);
    LocalDisk disk = disks.disks().get(0);
    assertTrue(disk.isHealthy(), "a deleted shuffle is not a disk failure: " + disk);
    assertEquals(0, partition.dataLength());
    assertFalse(Files.exists(disks.shuffleDir(disk, "app-1", 3)));
  }

  /**
   * sendfile reads a file segment only after the server answered with it: a disk that vanishes then
   * (unmounted, failed) must leave rotation as on any failed read; a connection that breaks
   * mid-send must not take a healthy disk out.
   */
  @Test
  void aDiskThatVanishesUnderASendLeavesRotationAndABrokenConnectionDoesNot() throws Exception {
    PartitionFiles partition = partition(8);
    Blocks.append(partition, 0, 20);
    LocalDisk disk = disks.disks().get(0);

    partition.sendFailed(0, new IOException("writevAddresses(..) failed: Broken pipe"));
    afterTheDisksQueuedWork(disk);
    assertTrue(disk.isHealthy(), "a broken connection is not a disk failure: " + disk);

    ManagedBuffer segment = partition.data(0, (int) partition.dataLength());
    Path unmounted = tmp.resolve("unmounted");
    Files.move(tmp.resolve("disk"), unmounted);
    IOException failed = assertThrows(IOException.class, () -> Blocks.readRegion(segment));
    partition.sendFailed(0, failed);
    afterTheDisksQueuedWork(disk);
    assertTrue(disk.isUnreadable(), "a vanished disk leaves rotation: " + disk);
    assertFalse(Files.exists(tmp.resolve("disk")), "and is not created again");
  }

  @Test
  void anInputOutputErrorWhileSendingTakesTheDiskOut() throws Exception {
    PartitionFiles partition = partition(9);
    Blocks.append(partition, 0, 5);
    LocalDisk disk = disks.disks().get(0);
    partition.sendFailed(0, new IOException("sendfile(..) failed: Input/output error"));
    afterTheDisksQueuedWork(disk);
    assertTrue(disk.isUnreadable(), disk.toString());
  }

  /** The disk's one thread (one per disk here) ran what was queued before this call. */
  private static void afterTheDisksQueuedWork(LocalDisk disk) throws Exception {
    CompletableFuture.runAsync(() -> {}, disk.flushExecutor()).get(30, TimeUnit.SECONDS);
  }

  /**
   * Appends around the page cache (the last copy of a replica chain) leave the file exactly as
   * buffered ones do, mixed in any order: batches smaller than a file-system block, batches that
   * start and end inside one, and batches larger than a flush thread's staging buffer.
   */
  @Test
  void appendsAroundThePageCacheLeaveTheSameFile() throws Exception {
    // No faults: it only counts the direct opens.
    FaultyFileIo counting = new FaultyFileIo();
    disks.close();
    disks = new DiskManager(List.of(tmp.resolve("disk")), 0, 1, counting);
    LocalDisk disk = disks.disks().get(0);
    assumeTrue(
        Blocks.directIoWorks(tmp.resolve("disk")) && disk.takesDirectWrites(),
        "O_DIRECT works here");
    PartitionFiles partition = new PartitionFiles(disks, counting, "app-1", 3, 9);
    // {first block, count, around the page cache}: 1 block is under 20 KB, 150 over 1 MiB.
    long[][] batches = {
      {0, 1, 1}, {1, 1, 1}, {2, 40, 0}, {42, 150, 1}, {192, 3, 1}, {195, 1, 0}, {196, 120, 1}
    };
    for (long[] batch : batches) {
      Blocks.appendOnFlushThread(partition, disk, batch[0], (int) batch[1], batch[2] == 1);
    }
    byte[] expected = Blocks.expected(0, 316);
    assertEquals(expected.length, partition.dataLength());
    assertEquals(
        Blocks.alignedUp(expected.length),
        Files.size(partition.files().get(0)),
        "the last batch went around the page cache: its padding to 4 KiB stays");
    assertArrayEquals(expected, Blocks.readAllData(partition));
    assertArrayEquals(expected, Blocks.readRegion(partition.data(0, expected.length)));
    List<IndexEntry> entries = Blocks.decodeIndex(partition.index());
    assertEquals(316, entries.size());
    Blocks.assertEntries(partition, entries, 0, 0);
    assertTrue(disk.isHealthy(), disk.toString());
    assertTrue(disk.takesDirectWrites());
    assertEquals(5, counting.directOpens(), "every append asked to bypass the cache did");
    ReadSnapshot snapshot = partition.snapshot();
    assertSame(disk.readExecutor(), snapshot.directReadThreads(0), "read as it was written");
    ReadBudget readMemory = new ReadBudget(64L << 20);
    ManagedBuffer read =
        snapshot.directData(
            0, expected.length, readMemory.directReads(), PooledByteBufAllocator.DEFAULT);
    assertInstanceOf(NettyManagedBuffer.class, read, "read into read memory");
    assertArrayEquals(expected, Blocks.readStream(read));
    ReadBudget spent = new ReadBudget(1L << 20);
    assertInstanceOf(
        FileSegmentManagedBuffer.class,
        snapshot.directData(
            0, expected.length, spent.directReads(), PooledByteBufAllocator.DEFAULT),
        "without room in read memory, sent with sendfile");
    readMemory.close();
    assertEquals(0, readMemory.usedBytes());

    // Off a flush thread there is no staging buffer: the append goes through the page cache.
    List<TestBlock> more = Blocks.make(316, 5);
    try {
      partition.append(more, true);
    } finally {
      Blocks.release(more);
    }
    assertEquals(5, counting.directOpens());
    assertArrayEquals(Blocks.expected(0, 321), Blocks.readAllData(partition));
  }

  @Test
  void dataWrittenThroughThePageCacheIsSentWithSendfile() throws Exception {
    PartitionFiles partition = partition(4);
    Blocks.append(partition, 0, 5);
    assertNull(partition.snapshot().directReadThreads(0));
  }

  @Test
  void anInputOutputErrorOfADirectReadTakesTheDiskOutAndFailsTheRead() throws Exception {
    FaultyFileIo io = new FaultyFileIo();
    disks.close();
    disks = new DiskManager(List.of(tmp.resolve("disk")), 0, 1, io);
    LocalDisk disk = disks.disks().get(0);
    assumeTrue(
        Blocks.directIoWorks(tmp.resolve("disk")) && disk.takesDirectWrites(),
        "O_DIRECT works here");
    PartitionFiles partition = new PartitionFiles(disks, io, "app-1", 3, 9);
    Blocks.appendOnFlushThread(partition, disk, 0, 5, true);
    io.failDirectReads(tmp.resolve("disk"), "Input/output error");
    ReadSnapshot snapshot = partition.snapshot();
    long length = snapshot.dataLength();
    ReadBudget readMemory = new ReadBudget(64L << 20);
    assertThrows(
        IOException.class,
        () ->
            snapshot.directData(
                0, (int) length, readMemory.directReads(), PooledByteBufAllocator.DEFAULT));
    assertTrue(disk.isUnreadable(), disk.toString());
    readMemory.close();
    assertEquals(0, readMemory.usedBytes(), "the pieces taken for the read went back");
  }
}
