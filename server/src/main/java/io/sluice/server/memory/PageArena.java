package io.sluice.server.memory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The push pool's memory for blocks of {@link PushBufferPool#SMALL_BLOCK} bytes and more: chunks of
 * {@link #CHUNK_SIZE} bytes in {@link #PAGES} pages, a block taking a run of whole pages of one
 * chunk, and a block larger than a chunk a piece of memory of its own. A page is free again as soon
 * as its block is released (after the last memory read of it), so a chunk's free runs take new
 * blocks while its other blocks wait for their flush.
 *
 * <p>A chunk whose last block goes is kept as a spare, mapped and already touched, for the next
 * chunk the arena needs, for at most the spare keep time given to it; then, or when the memory is
 * needed for something larger (a block of its own, or a slab of the pool), or once the arena is
 * closed, it goes back to the operating system. Mapping a chunk anew costs the event loop that
 * fills it a page fault and the kernel's zeroing of every 4 KiB page: 13% of the event loops' CPU
 * in the server benchmark when each emptied chunk went back at once.
 *
 * <p>What it holds is counted exactly as it changes, and an allocation looks at no more than the
 * lists of chunks by their longest free run: unlike Netty's pooled allocator, whose held memory
 * could only be counted by walking every chunk under its lock (once half of the server's Java time
 * under back-pressure), nothing here grows with the number of chunks.
 *
 * <p>Guarded by the lock given to it (the push pool's): {@link #allocate} is called holding it; a
 * block's release, from any thread, takes it.
 */
final class PageArena {
  static final int PAGE_SIZE = 8 * 1024;
  static final int PAGES = 128;
  static final int CHUNK_SIZE = PAGE_SIZE * PAGES;

  /**
   * Where a chunk's pages start: a multiple of this in memory, so that a block can be written to
   * disk around the page cache straight from its pages ({@code storage/DirectAppender}). The memory
   * allocator gives no such alignment, so each chunk takes this much more memory than its pages, as
   * slack before them; the pool's capacity counts the pages, the server's direct-memory bound the
   * slack too ({@link PushBufferPool#alignmentSlack}).
   */
  static final int PAGE_ALIGNMENT = 4096;

  private final Object lock;
  private final long spareKeepNanos;

  /** Chunks with free pages, by their longest free run (index 1 to PAGES). Guarded by lock. */
  private final List<List<Chunk>> byLongestRun = new ArrayList<>(PAGES + 1);

  /** Empty chunks kept for reuse, the most recently emptied first. Guarded by lock. */
  private final ArrayDeque<Chunk> spares = new ArrayDeque<>();

  /** Memory of live chunks and of blocks that have their own. Guarded by lock. */
  private long heldBytes;

  /** {@link #heldBytes} for readers that do not take the lock. */
  private volatile long heldBytesSnapshot;

  /** Memory of the spare chunks. Guarded by lock. */
  private long spareBytes;

  /** Once closed, an emptied chunk goes back at once. Guarded by lock. */
  private boolean closed;

  /**
   * @param lock the push pool's lock, which guards the arena
   * @param spareKeepNanos how long an emptied chunk is kept for reuse; 0 gives it back at once
   */
  PageArena(Object lock, long spareKeepNanos) {
    this.lock = lock;
    this.spareKeepNanos = spareKeepNanos;
    for (int i = 0; i <= PAGES; i++) {
      byLongestRun.add(new ArrayList<>());
    }
  }

  /**
   * An empty block of exactly {@code length} bytes, or null when it would take what the arena holds
   * past {@code limit}. Call holding the lock.
   */
  PageBlock allocate(int length, long limit) {
    int pages = pagesFor(length);
    if (pages > PAGES) {
      long size = (long) pages * PAGE_SIZE;
      if (size > Integer.MAX_VALUE || !makeRoom(size, limit)) {
        return null;
      }
      Chunk own = newChunk((int) size, pages);
      return own.take(0, pages, length);
    }
    for (int run = pages; run <= PAGES; run++) {
      List<Chunk> candidates = byLongestRun.get(run);
      if (!candidates.isEmpty()) {
        Chunk chunk = candidates.get(candidates.size() - 1);
        return chunk.take(chunk.firstRun(pages), pages, length);
      }
    }
    Chunk spare = spares.pollFirst();
    if (spare != null) {
      spareBytes -= spare.size;
      heldBytes += spare.size;
      heldBytesSnapshot = heldBytes;
      return spare.take(0, pages, length);
    }
    if (!makeRoom(CHUNK_SIZE, limit)) {
      return null;
    }
    return newChunk(CHUNK_SIZE, PAGES).take(0, pages, length);
  }

  /**
   * Whether {@code size} more bytes fit under {@code limit} beside all the arena holds, after
   * giving back as many spares as that takes, the longest unused first. Call holding the lock.
   */
  boolean makeRoom(long size, long limit) {
    while (heldBytes + spareBytes + size > limit && !spares.isEmpty()) {
      releaseSpare(spares.pollLast());
    }
    return heldBytes + spareBytes + size <= limit;
  }

  /**
   * Gives back the spares that were not reused within the spare keep time as of {@code nowNanos}
   * ({@link System#nanoTime()}). Call holding the lock.
   */
  void releaseIdleSpares(long nowNanos) {
    Chunk oldest;
    while ((oldest = spares.peekLast()) != null && nowNanos - oldest.spareSince >= spareKeepNanos) {
      releaseSpare(spares.pollLast());
    }
  }

  /** Gives back every spare, and from now on every emptied chunk at once. Call holding the lock. */
  void close() {
    closed = true;
    Chunk spare;
    while ((spare = spares.pollLast()) != null) {
      releaseSpare(spare);
    }
  }

  private void releaseSpare(Chunk spare) {
    spareBytes -= spare.size;
    spare.memory.release();
  }

  /** Memory of the chunks that hold blocks, exactly; call holding the lock. */
  long heldBytes() {
    return heldBytes;
  }

  /** Memory of the spare chunks, exactly; call holding the lock. */
  long spareBytes() {
    return spareBytes;
  }

  /** Memory held as of the last change, without the lock. */
  long heldBytesSnapshot() {
    return heldBytesSnapshot;
  }

  static int pagesFor(int length) {
    return (int) (((long) length + PAGE_SIZE - 1) / PAGE_SIZE);
  }

  private Chunk newChunk(int size, int pages) {
    Chunk chunk = new Chunk(size, pages);
    heldBytes += size;
    heldBytesSnapshot = heldBytes;
    return chunk;
  }

  /**
   * One piece of memory: a page bitmap over a {@link Slab} that holds the bytes. Blocks wrap slices
   * of the slab's memory and own no reference to it: the arena releases the slab when the last
   * block's pages come back.
   */
  final class Chunk {
    private final Slab memory;

    /** Bytes of its pages: what the arena counts it as holding. */
    private final int size;

    /**
     * Where the first page starts in {@link #memory}: the first {@link #PAGE_ALIGNMENT} boundary.
     */
    private final int firstPage;

    private final int pages;

    /** Bit i set: page i is taken. A chunk of its own block has one run, taken whole. */
    private final long[] taken;

    private int freePages;
    private int longestRun;

    /** Where this chunk sits in {@code byLongestRun.get(longestRun)}; -1 when in no list. */
    private int listIndex = -1;

    /** When the chunk last became a spare ({@link System#nanoTime()}). */
    private long spareSince;

    Chunk(int size, int pages) {
      this.memory = new Slab(size + PAGE_ALIGNMENT, freed -> {});
      this.size = size;
      this.firstPage = (int) (-memory.memoryAddress() & (PAGE_ALIGNMENT - 1));
      this.pages = pages;
      this.taken = new long[(pages + 63) / 64];
      this.freePages = pages;
      this.longestRun = pages;
    }

    /** The first page of the lowest run of {@code n} free pages; there is one. */
    int firstRun(int n) {
      for (int start = next(0, true); start < pages; ) {
        int end = next(start, false);
        if (end - start >= n) {
          return start;
        }
        start = next(end, true);
      }
      throw new IllegalStateException(
          "no run of " + n + " free pages in a chunk listed with " + longestRun);
    }

    PageBlock take(int first, int n, int length) {
      for (int page = first; page < first + n; page++) {
        taken[page >>> 6] |= 1L << page;
      }
      freePages -= n;
      relist();
      return new PageBlock(
          memory.nioBuffer(firstPage + first * PAGE_SIZE, length),
          n * PAGE_SIZE,
          () -> giveBack(first, n));
    }

    private void giveBack(int first, int n) {
      synchronized (lock) {
        for (int page = first; page < first + n; page++) {
          taken[page >>> 6] &= ~(1L << page);
        }
        freePages += n;
        if (freePages == pages) {
          unlist();
          heldBytes -= size;
          heldBytesSnapshot = heldBytes;
          if (pages == PAGES && spareKeepNanos > 0 && !closed) {
            spareSince = System.nanoTime();
            spares.addFirst(this);
            spareBytes += size;
          } else {
            memory.release();
          }
        } else {
          relist();
        }
      }
    }

    /** The first page from {@code from} on that is free (or taken), or {@code pages}. */
    private int next(int from, boolean free) {
      int word = from >>> 6;
      if (word >= taken.length) {
        return pages;
      }
      // A shift takes its count modulo 64: the pages of this word below from are masked off.
      long bits = (free ? ~taken[word] : taken[word]) & (-1L << from);
      while (bits == 0) {
        if (++word == taken.length) {
          return pages;
        }
        bits = free ? ~taken[word] : taken[word];
      }
      return Math.min(pages, (word << 6) + Long.numberOfTrailingZeros(bits));
    }

    /** Files the chunk under its longest free run, or under none when it is full or huge. */
    private void relist() {
      unlist();
      longestRun = pages > PAGES ? 0 : longestFreeRun();
      if (longestRun > 0) {
        List<Chunk> list = byLongestRun.get(longestRun);
        listIndex = list.size();
        list.add(this);
      }
    }

    private void unlist() {
      if (listIndex < 0) {
        return;
      }
      List<Chunk> list = byLongestRun.get(longestRun);
      Chunk last = list.remove(list.size() - 1);
      if (last != this) {
        list.set(listIndex, last);
        last.listIndex = listIndex;
      }
      listIndex = -1;
    }

    private int longestFreeRun() {
      if (freePages == 0) {
        return 0;
      }
      int longest = 0;
      for (int start = next(0, true); start < pages; ) {
        int end = next(start, false);
        longest = Math.max(longest, end - start);
        start = next(end, true);
      }
      return longest;
    }
  }
}
