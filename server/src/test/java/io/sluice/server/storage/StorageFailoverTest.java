package io.sluice.server.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.common.buffer.FileSegmentManagedBuffer;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.shuffle.IndexEntry;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Disks that fill up or fail while partitions are written to them. */
class StorageFailoverTest {
  private static final String ENOSPC = "No space left on device";
  private static final String EIO = "Input/output error";

  @TempDir Path tmp;
  private Path a;
  private Path b;
  private final FaultyFileIo io = new FaultyFileIo();
  private final Map<Path, Long> usable = new ConcurrentHashMap<>();
  private final AtomicLong clock = new AtomicLong();
  private DiskManager disks;
  private LocalDisk diskA;
  private LocalDisk diskB;

  @BeforeEach
  void setUp() {
    a = tmp.resolve("a").toAbsolutePath().normalize();
    b = tmp.resolve("b").toAbsolutePath().normalize();
    // Disk a has more room, so partitions start there.
    usable.put(a, 20L << 30);
    usable.put(b, 10L << 30);
    disks =
        new DiskManager(List.of(a, b), 0, 1, io, root -> usable.getOrDefault(root, 0L), clock::get);
    diskA = disks.disks().get(0);
    diskB = disks.disks().get(1);
  }

  @AfterEach
  void tearDown() {
    disks.close();
  }

  private PartitionFiles partition(int id) {
    return new PartitionFiles(disks, io, "app", 1, id);
  }

  /**
   * A direct append (the last copy of a replica chain) that fails part-way on a full disk: the
   * rewritten partial block and the padding are cut back, the batch is tried through the page cache
   * on the same disk, which fails too, and goes whole to the other disk.
   */
  @Test
  void aDirectAppendThatFailsPartWayGoesWholeToAnotherDisk() throws Exception {
    assumeTrue(Blocks.directIoWorks(a) && diskA.takesDirectWrites(), "O_DIRECT works here");
    PartitionFiles partition = partition(0);
    Blocks.appendOnFlushThread(partition, diskA, 0, 3, true);
    long firstGeneration = partition.dataLength();
    assertTrue(firstGeneration % 4096 != 0, "the file ends inside a block: " + firstGeneration);
    Path dataOnA = partition.files().get(0);

    io.failWritesAfter(a, 5000, ENOSPC);
    Blocks.appendOnFlushThread(partition, diskA, 3, 150, true);

    assertFalse(diskA.isHealthy());
    assertEquals(DiskManager.DISK_FULL, diskA.unhealthyReason());
    assertTrue(diskA.takesDirectWrites(), "the disk failed, not direct I/O");
    assertEquals(firstGeneration, Files.size(dataOnA), "the partial write was cut off again");
    assertTrue(partition.files().get(2).startsWith(b), partition.files().toString());
    Blocks.appendOnFlushThread(partition, diskA, 153, 40, true);
    assertEquals(Blocks.totalLength(0, 193), partition.dataLength());
    assertEquals(
        Blocks.alignedUp(Blocks.totalLength(3, 190)), Files.size(partition.files().get(2)));
    assertArrayEquals(Blocks.expected(0, 193), Blocks.readAllData(partition));
    Blocks.assertEntries(partition, Blocks.decodeIndex(partition.index()), 0, 0);
  }

  /**
   * As above with blocks written to disk straight from their memory (aligned, 64 KiB and more),
   * with zeros before them: the failed batch goes whole to the other disk, and every block reads
   * back at its index entry's offset from either generation.
   */
  @Test
  void aDirectAppendOfBlocksInPlaceThatFailsPartWayGoesWholeToAnotherDisk() throws Exception {
    assumeTrue(Blocks.directIoWorks(a) && diskA.takesDirectWrites(), "O_DIRECT works here");
    PartitionFiles partition = partition(0);
    List<byte[]> contents = new ArrayList<>();
    appendInPlace(partition, contents, 3);
    long firstGeneration = partition.dataLength();
    Path dataOnA = partition.files().get(0);

    io.failWritesAfter(a, 300_000, ENOSPC);
    appendInPlace(partition, contents, 6);

    assertFalse(diskA.isHealthy());
    assertEquals(firstGeneration, Files.size(dataOnA), "the partial write was cut off again");
    assertTrue(partition.files().get(2).startsWith(b), partition.files().toString());
    List<IndexEntry> entries = Blocks.decodeIndex(partition.index());
    assertEquals(contents.size(), entries.size());
    assertTrue(entries.get(1).offset() > entries.get(0).end(), "zeros before an in-place block");
    for (int i = 0; i < entries.size(); i++) {
      IndexEntry e = entries.get(i);
      assertEquals(i, e.sequence());
      assertArrayEquals(
          contents.get(i), Blocks.readStream(partition.data(e.offset(), e.length())), "block " + i);
    }
  }

  /** Appends {@code count} blocks of 70-200 KiB in 4 KiB-aligned memory, on a flush thread. */
  private void appendInPlace(PartitionFiles partition, List<byte[]> contents, int count)
      throws Exception {
    List<TestBlock> blocks = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      byte[] bytes = new byte[70_000 + 13_000 * (contents.size() % 10)];
      new Random(contents.size()).nextBytes(bytes);
      ByteBuffer memory = ByteBuffer.allocateDirect(bytes.length + 2 * 4096).alignedSlice(4096);
      ByteBuf data =
          Unpooled.wrappedBuffer(memory.slice(0, bytes.length)).clear().writeBytes(bytes);
      blocks.add(new TestBlock(data, 1, contents.size(), bytes.length, Crc32c.of(bytes)));
      contents.add(bytes);
    }
    Blocks.appendOnFlushThread(partition, diskA, blocks, true);
  }

  /**
   * A file system that opens files for direct I/O and then refuses the writes: the batch goes
   * through the page cache on the same disk, which stays in rotation and takes no direct writes
   * again.
   */
  @Test
  void aFileSystemThatRefusesDirectWritesKeepsItsDisk() throws Exception {
    assumeTrue(Blocks.directIoWorks(a) && diskA.takesDirectWrites(), "O_DIRECT works here");
    io.failDirectWrites(a, "Invalid argument");
    PartitionFiles partition = partition(0);
    Blocks.appendOnFlushThread(partition, diskA, 0, 40, true);
    Blocks.appendOnFlushThread(partition, diskA, 40, 40, true);

    assertTrue(diskA.isHealthy(), diskA.toString());
    assertFalse(diskA.takesDirectWrites());
    assertEquals(2, partition.files().size(), "one generation, on the same disk");
    assertArrayEquals(Blocks.expected(0, 80), Blocks.readAllData(partition));
    Blocks.assertEntries(partition, Blocks.decodeIndex(partition.index()), 0, 0);
  }

  /**
   * A failing device refuses direct writes with EIO, while the page cache would take the same batch
   * and lose it at write-back: the buffered retry is forced to the device, fails there, and the
   * disk is judged (the batch goes to the other disk) rather than kept with direct writes off.
   */
  @Test
  void aDeviceThatFailsDirectWritesIsNotMaskedByThePageCache() throws Exception {
    assumeTrue(Blocks.directIoWorks(a) && diskA.takesDirectWrites(), "O_DIRECT works here");
    io.failDirectWrites(a, EIO);
    io.failForce(a, EIO);
    PartitionFiles partition = partition(0);
    Blocks.appendOnFlushThread(partition, diskA, 0, 40, true);

    assertFalse(diskA.isHealthy(), diskA.toString());
    assertTrue(diskA.takesDirectWrites(), "the file system was not blamed");
    assertTrue(diskB.isHealthy());
    List<Path> files = partition.files();
    assertEquals(4, files.size(), files.toString());
    assertEquals(0, Files.size(files.get(0)), "nothing left on the failed disk: " + files);
    assertTrue(files.get(2).startsWith(b), files.toString());
    assertArrayEquals(Blocks.expected(0, 40), Blocks.readAllData(partition));
  }

  @Test
  void aDiskThatFillsUpMidWriteHandsThePartitionToAnotherDisk() throws Exception {
    PartitionFiles partition = partition(0);
    Blocks.append(partition, 0, 40);
    long firstGeneration = partition.dataLength();
    Path dataOnA = partition.files().get(0);
    assertTrue(dataOnA.startsWith(a));

    io.failWritesAfter(a, 5000, ENOSPC);
    Blocks.append(partition, 40, 40);

    assertFalse(diskA.isHealthy());
    assertEquals(DiskManager.DISK_FULL, diskA.unhealthyReason());
    assertTrue(diskB.isHealthy());
    assertEquals(firstGeneration, Files.size(dataOnA), "the partial write was cut off again");
    assertEquals(40L * IndexEntry.SIZE, Files.size(partition.files().get(1)));
    List<Path> files = partition.files();
    assertEquals(4, files.size());
    assertTrue(files.get(2).startsWith(b) && files.get(3).startsWith(b), files.toString());

    Blocks.append(partition, 80, 40);
    assertEquals(4, partition.files().size(), "later appends stay in the new generation");

    assertEquals(120, partition.blockCount());
    assertEquals(Blocks.totalLength(0, 120), partition.dataLength());
    assertArrayEquals(
        Blocks.expected(0, 120),
        Blocks.readAllData(partition),
        "data from before the failure is still readable, offsets are continuous");

    ManagedBuffer index = partition.snapshot().index(PooledByteBufAllocator.DEFAULT);
    assertInstanceOf(NettyManagedBuffer.class, index, "several generations: entries in memory");
    assertEquals(120L * IndexEntry.SIZE, index.size());
    Blocks.assertEntries(partition, Blocks.decodeIndex(index), 0, 0);
    assertEquals(0, index.refCnt());
    Blocks.assertEntries(partition, Blocks.decodeIndex(partition.index()), 0, 0);
  }

  @Test
  void indexPagesCoverEveryGenerationInOrderAndKeepTheirNumbers() throws Exception {
    PartitionFiles partition = partition(0);
    Blocks.append(partition, 0, 40);
    io.failOpen(a, ENOSPC);
    Blocks.append(partition, 40, 40);
    List<IndexEntry> whole =
        Blocks.decodeIndex(partition.snapshot().index(PooledByteBufAllocator.DEFAULT));

    List<IndexEntry> paged = new java.util.ArrayList<>();
    int from = 0;
    int pages = 0;
    boolean more = true;
    while (more) {
      IndexPage page = partition.snapshot().page(from, 15);
      ManagedBuffer entries = page.read(PooledByteBufAllocator.DEFAULT);
      assertInstanceOf(
          FileSegmentManagedBuffer.class,
          entries,
          "a page of a local index file goes out with sendfile");
      assertTrue(entries.size() <= 15L * IndexEntry.SIZE, "a page of " + entries.size());
      assertEquals(partition.dataLength(), page.dataLength());
      paged.addAll(Blocks.decodeIndex(entries));
      assertTrue(page.nextEntry() > from || !page.hasMore(), "pages advance");
      from = page.nextEntry();
      more = page.hasMore();
      pages++;
    }
    assertEquals(whole, paged);
    assertEquals(6, pages, "15 + 15 + 10 entries in the first generation, as many in the second");

    // Entry numbers stay where they are when the partition grows.
    List<IndexEntry> before =
        Blocks.decodeIndex(partition.snapshot().page(30, 20).read(PooledByteBufAllocator.DEFAULT));
    Blocks.append(partition, 80, 10);
    IndexPage after = partition.snapshot().page(30, 20);
    assertEquals(before, Blocks.decodeIndex(after.read(PooledByteBufAllocator.DEFAULT)));
    assertEquals(40, after.nextEntry(), "a page ends with its generation");
    assertTrue(after.hasMore());
    IndexPage end = partition.snapshot().page(90, 20);
    assertEquals(0, end.bytes());
    assertFalse(end.hasMore());
    assertEquals(90, end.nextEntry());
  }

  @Test
  void indexPagesSkipAGenerationOnADiskLostForReads() throws Exception {
    PartitionFiles partition = partition(0);
    Blocks.append(partition, 0, 10);
    io.failOpen(a, ENOSPC);
    Blocks.append(partition, 10, 10);
    disks.markUnreadable(diskA, "IOException: Input/output error");

    IndexPage page = partition.snapshot().page(0, 100);
    assertEquals(20, page.nextEntry());
    assertFalse(page.hasMore());
    List<IndexEntry> entries = Blocks.decodeIndex(page.read(PooledByteBufAllocator.DEFAULT));
    assertEquals(
        Blocks.decodeIndex(partition.snapshot().index(PooledByteBufAllocator.DEFAULT)),
        entries,
        "the same entries as the whole index: those of the lost disk are left out");
    assertEquals(10, entries.size());
  }

  @Test
  void aRangeAcrossGenerationsIsReadInTwoSegments() throws Exception {
    PartitionFiles partition = partition(0);
    Blocks.append(partition, 0, 10);
    long boundary = partition.dataLength();
    io.failOpen(a, ENOSPC);
    Blocks.append(partition, 10, 10);

    ManagedBuffer first = partition.data(boundary - 100, 300);
    FileSegmentManagedBuffer firstSegment = assertInstanceOf(FileSegmentManagedBuffer.class, first);
    assertEquals(100, first.size(), "short: the range crosses the end of the first generation");
    assertTrue(firstSegment.file().startsWith(a));
    ManagedBuffer second = partition.data(boundary, 200);
    FileSegmentManagedBuffer secondSegment =
        assertInstanceOf(FileSegmentManagedBuffer.class, second);
    assertEquals(0, secondSegment.offset());
    assertTrue(secondSegment.file().startsWith(b));

    byte[] expected = Blocks.expected(0, 20);
    byte[] joined = new byte[300];
    System.arraycopy(Blocks.readRegion(first), 0, joined, 0, 100);
    System.arraycopy(Blocks.readRegion(second), 0, joined, 100, 200);
    byte[] wanted = new byte[300];
    System.arraycopy(expected, (int) boundary - 100, wanted, 0, 300);
    assertArrayEquals(wanted, joined);
  }

  @Test
  void aFailedIndexWriteUndoesTheBatchsDataToo() throws Exception {
    PartitionFiles partition = partition(0);
    Blocks.append(partition, 0, 5);
    long before = partition.dataLength();
    long batch = Blocks.totalLength(5, 5);
    io.failWritesAfter(a, batch + 10, EIO);
    Blocks.append(partition, 5, 5);

    assertEquals(before, Files.size(partition.files().get(0)), "data of the batch removed");
    assertEquals(5L * IndexEntry.SIZE, Files.size(partition.files().get(1)));
    assertTrue(diskA.unhealthyReason().contains(EIO), diskA.unhealthyReason());
    assertArrayEquals(Blocks.expected(0, 10), Blocks.readAllData(partition));
    Blocks.assertEntries(partition, Blocks.decodeIndex(partition.index()), 0, 0);
  }

  @Test
  void aDiskWithIoErrorsIsReportedAndStaysOut() throws Exception {
    io.failOpen(a, EIO);
    PartitionFiles partition = partition(3);
    Blocks.append(partition, 0, 4);
    assertEquals("IOException: " + EIO, diskA.unhealthyReason());
    assertTrue(partition.files().get(2).startsWith(b));
    assertFalse(Files.exists(partition.files().get(0)), "nothing was created on the failed disk");

    io.heal(a);
    clock.addAndGet(TimeUnit.MINUTES.toNanos(10));
    assertEquals(diskB, disks.pick());
    assertArrayEquals(Blocks.expected(0, 4), Blocks.readAllData(partition));
  }

  @Test
  void aFullDiskTakesNewPartitionsAgainOnceItHasRoom() throws Exception {
    io.failOpen(a, ENOSPC);
    Blocks.append(partition(0), 0, 2);
    assertEquals(DiskManager.DISK_FULL, diskA.unhealthyReason());
    io.heal(a);
    clock.addAndGet(TimeUnit.SECONDS.toNanos(10));
    PartitionFiles later = partition(1);
    Blocks.append(later, 2, 2);
    assertTrue(diskA.isHealthy());
    assertTrue(later.files().get(0).startsWith(a));
  }

  @Test
  void whenNoDiskCanTakeABatchNothingOfItIsAcknowledged() throws Exception {
    PartitionFiles partition = partition(0);
    Blocks.append(partition, 0, 10);
    long length = partition.dataLength();
    io.failWritesAfter(a, 100, ENOSPC);
    io.failWritesAfter(b, 100, EIO);

    List<TestBlock> blocks = Blocks.make(10, 10);
    try {
      StorageUnavailableException e =
          assertThrows(StorageUnavailableException.class, () -> partition.append(blocks));
      assertNotNull(e.getCause());
      assertTrue(e.getMessage().contains("app/1/0"), e.getMessage());
      for (TestBlock block : blocks) {
        assertEquals(1, block.data().refCnt(), "the caller still owns the blocks");
      }
    } finally {
      Blocks.release(blocks);
    }
    assertEquals(length, partition.dataLength());
    assertEquals(10, partition.blockCount());
    assertFalse(diskA.isHealthy());
    assertFalse(diskB.isHealthy());
    assertArrayEquals(
        Blocks.expected(0, 10),
        Blocks.readAllData(partition),
        "what was stored before is still readable");
    Blocks.assertEntries(partition, Blocks.decodeIndex(partition.index()), 0, 0);
    for (Path file : partition.files()) {
      if (file.startsWith(b)) {
        assertEquals(0, Files.size(file), "the failed batch was cut off on " + file);
      }
    }

    List<TestBlock> more = Blocks.make(20, 1);
    try {
      assertThrows(
          StorageUnavailableException.class,
          () -> partition(1).append(more),
          "a new partition finds no disk either");
    } finally {
      Blocks.release(more);
    }
  }

  @Test
  void aPartitionLeavesADiskThatAnotherPartitionFoundBroken() throws Exception {
    PartitionFiles partition = partition(0);
    Blocks.append(partition, 0, 3);
    disks.markUnhealthy(diskA, "IOException: " + EIO);
    Blocks.append(partition, 3, 3);
    List<Path> files = partition.files();
    assertEquals(4, files.size());
    assertTrue(files.get(2).startsWith(b));
    assertArrayEquals(Blocks.expected(0, 6), Blocks.readAllData(partition));
  }

  @Test
  void failuresLeaveNoDescriptorsOpenAndDeleteReachesEveryGeneration() throws Exception {
    assumeTrue(OpenFiles.supported(), "needs /proc/self/fd");
    PartitionFiles partition = partition(0);
    Blocks.append(partition, 0, 10);
    io.failWritesAfter(a, 1000, ENOSPC);
    Blocks.append(partition, 10, 10);
    io.failWritesAfter(b, 10, EIO);
    List<TestBlock> blocks = Blocks.make(20, 3);
    try {
      assertThrows(StorageUnavailableException.class, () -> partition.append(blocks));
    } finally {
      Blocks.release(blocks);
    }
    Blocks.decodeIndex(partition.index());
    assertEquals(List.of(), OpenFiles.under(tmp));

    List<Path> files = partition.files();
    assertEquals(4, files.size());
    partition.delete();
    for (Path file : files) {
      assertFalse(Files.exists(file), file + " deleted");
    }
  }
}
