package io.sluice.client.core.read;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.ProtocolVersion;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.CommitMapOutputRequest;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.FetchIndexPageRequest;
import io.sluice.common.protocol.message.FetchIndexPageResponse;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchIndexResponse;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.FetchMemoryDataResponse;
import io.sluice.common.protocol.message.GetShuffleResultRequest;
import io.sluice.common.protocol.message.GetShuffleResultResponse;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.shuffle.IndexEntry;
import io.sluice.common.transport.RequestHandler;
import io.sluice.common.transport.TransportChannel;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportServer;
import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A shuffle server for reader and pusher tests, on a real socket: holds partitions' blocks in
 * "memory" and on "disk" (a byte array and its index) with the server's read semantics, answers
 * reads short where a test marks a file boundary, and fails or ignores requests on demand. Pushed
 * blocks join the partition's memory and commits set its counts; pushes can be held unanswered
 * until the test lets them through. Replica chains of pushes are recorded, not forwarded.
 */
public final class FakeShuffleServer implements RequestHandler, AutoCloseable {
  /**
   * A stored block and the CRC32C its writer computed (normally of its bytes; see {@link
   * #corrupted}).
   */
  public record Block(long taskAttemptId, int sequence, byte[] bytes, int crc) {
    public Block(long taskAttemptId, int sequence, byte[] bytes) {
      this(taskAttemptId, sequence, bytes, Crc32c.of(bytes));
    }

    /** The reader passes the uncompressed length through; a recognisable value will do. */
    public int uncompressedLength() {
      return bytes.length * 3;
    }
  }

  /** A push answered later, when the test lets held pushes through. */
  private record Held(TransportChannel channel, long requestId, long bytes) {}

  private static final class Partition {
    final List<Block> memory = new ArrayList<>();
    final ByteArrayOutputStream disk = new ByteArrayOutputStream();
    final List<long[]> index = new ArrayList<>();
    final Map<Long, Integer> committed = new HashMap<>();
    final TreeSet<Long> fileEnds = new TreeSet<>();
  }

  private enum Fault {
    ERROR,
    SILENCE
  }

  private record Injected(Fault fault, StatusCode status) {}

  private final TransportServer server;
  private final Map<Integer, Partition> partitions = new HashMap<>();
  private final Map<Class<?>, Deque<Injected>> faults = new HashMap<>();
  private final List<RequestMessage> received = new ArrayList<>();
  private final List<Long> pushArrivals = new ArrayList<>();
  private final List<Held> held = new ArrayList<>();
  private boolean holdPushes;
  private int indexPageEntries = Integer.MAX_VALUE;
  private long heldBytes;
  private long maxHeldBytes;

  public FakeShuffleServer() {
    this(ProtocolVersion.CURRENT);
  }

  /** A server of the release whose newest protocol version was {@code newestVersion}. */
  public FakeShuffleServer(int newestVersion) {
    server =
        new TransportContext(
                new TransportConf(SluiceConf.empty()),
                "fake-server",
                PooledByteBufAllocator.DEFAULT)
            .speakingUpTo(newestVersion)
            .createServer("127.0.0.1", 0, this);
  }

  public int port() {
    return server.port();
  }

  /** Where clients reach this server; its id is unique per port. */
  public ServerAddress address() {
    return new ServerAddress("fake-" + port(), "127.0.0.1", port());
  }

  /** Random bytes as block {@code sequence} that {@code attempt} wrote for {@code partition}. */
  public static Block block(int partition, long attempt, int sequence, int size) {
    byte[] bytes = new byte[size];
    ThreadLocalRandom.current().nextBytes(bytes);
    return new Block(attempt, sequence, bytes);
  }

  /** The block with one bit flipped, still carrying the CRC32C its writer computed. */
  public static Block corrupted(Block b) {
    byte[] bytes = b.bytes().clone();
    bytes[bytes.length / 2] ^= 0x10;
    return new Block(b.taskAttemptId(), b.sequence(), bytes, b.crc());
  }

  public synchronized FakeShuffleServer inMemory(int partition, Block... blocks) {
    partition(partition).memory.addAll(List.of(blocks));
    return this;
  }

  public synchronized FakeShuffleServer onDisk(int partition, Block... blocks) {
    Partition p = partition(partition);
    for (Block b : blocks) {
      p.index.add(
          new long[] {
            p.disk.size(),
            b.bytes().length,
            b.uncompressedLength(),
            b.crc(),
            b.taskAttemptId(),
            b.sequence()
          });
      p.disk.writeBytes(b.bytes());
    }
    return this;
  }

  /** Reads of this partition's data stop at the current end of its data, as at a file's end. */
  public synchronized FakeShuffleServer endFileHere(int partition) {
    Partition p = partition(partition);
    p.fileEnds.add((long) p.disk.size());
    return this;
  }

  /** Reads stop at {@code offset} too (a real server never cuts inside a block; a reader copes). */
  public synchronized FakeShuffleServer endFileAt(int partition, long offset) {
    partition(partition).fileEnds.add(offset);
    return this;
  }

  /** Commits, for each attempt among {@code blocks}, a count of its highest sequence + 1. */
  public synchronized FakeShuffleServer commit(int partition, Block... blocks) {
    for (Block b : blocks) {
      partition(partition).committed.merge(b.taskAttemptId(), b.sequence() + 1, Math::max);
    }
    return this;
  }

  public synchronized FakeShuffleServer commitCount(int partition, long attempt, int count) {
    partition(partition).committed.put(attempt, count);
    return this;
  }

  /** The next {@code times} requests of {@code type} are answered with {@code status}. */
  public synchronized FakeShuffleServer failNext(Class<?> type, StatusCode status, int times) {
    for (int i = 0; i < times; i++) {
      faults.computeIfAbsent(type, k -> new ArrayDeque<>()).add(new Injected(Fault.ERROR, status));
    }
    return this;
  }

  /** The next request of {@code type} is never answered. */
  public synchronized FakeShuffleServer ignoreNext(Class<?> type) {
    faults.computeIfAbsent(type, k -> new ArrayDeque<>()).add(new Injected(Fault.SILENCE, null));
    return this;
  }

  /**
   * Every request received so far, of the given type. Pushes are kept for their headers; their
   * bodies were released on arrival.
   */
  public synchronized <T extends RequestMessage> List<T> received(Class<T> type) {
    return received.stream().filter(type::isInstance).map(type::cast).toList();
  }

  /** The blocks of {@code partition} in memory, pushed or placed there, in arrival order. */
  public synchronized List<Block> memory(int partition) {
    return List.copyOf(partition(partition).memory);
  }

  /** The block count committed for {@code attempt} to {@code partition}, or null. */
  public synchronized Integer committedCount(int partition, long attempt) {
    return partition(partition).committed.get(attempt);
  }

  /** System.nanoTime() at the arrival of each push, answered or not. */
  public synchronized List<Long> pushArrivals() {
    return List.copyOf(pushArrivals);
  }

  /** From now on, pushes are stored but answered only by {@link #releaseHeldPushes()}. */
  public synchronized FakeShuffleServer holdPushes(boolean hold) {
    holdPushes = hold;
    return this;
  }

  /** Answers (OK) every push held so far; returns how many. */
  public synchronized int releaseHeldPushes() {
    for (Held h : held) {
      h.channel().respond(StatusResponse.ok(h.requestId()));
    }
    int n = held.size();
    held.clear();
    heldBytes = 0;
    return n;
  }

  /** Pushes held unanswered right now. */
  public synchronized int heldPushes() {
    return held.size();
  }

  /** Bytes of the pushes held unanswered right now. */
  public synchronized long heldBytes() {
    return heldBytes;
  }

  /** The most bytes of pushes this server held unanswered at once. */
  public synchronized long maxHeldBytes() {
    return maxHeldBytes;
  }

  @Override
  public synchronized void handle(TransportChannel channel, RequestMessage request) {
    received.add(request);
    if (request instanceof PushDataRequest) {
      pushArrivals.add(System.nanoTime());
    }
    Deque<Injected> injected = faults.get(request.getClass());
    if (injected != null && !injected.isEmpty()) {
      ReferenceCountUtil.release(request);
      Injected fault = injected.poll();
      if (fault.fault() == Fault.ERROR) {
        channel.respond(StatusResponse.error(request.requestId(), fault.status(), "injected"));
      }
      return;
    }
    if (request instanceof PushDataRequest r) {
      try {
        storePush(channel, r);
      } finally {
        r.release();
      }
    } else if (request instanceof CommitMapOutputRequest r) {
      for (int i = 0; i < r.partitionIds().length; i++) {
        partition(r.partitionIds()[i]).committed.put(r.taskAttemptId(), r.blockCounts()[i]);
      }
      channel.respond(StatusResponse.ok(r.requestId()));
    } else if (request instanceof GetShuffleResultRequest r) {
      long[] attempts = r.taskAttemptIds();
      int[] counts = new int[attempts.length];
      for (int i = 0; i < attempts.length; i++) {
        counts[i] =
            partition(r.partitionId())
                .committed
                .getOrDefault(attempts[i], GetShuffleResultResponse.NOT_COMMITTED);
      }
      channel.respond(new GetShuffleResultResponse(r.requestId(), counts));
    } else if (request instanceof FetchMemoryDataRequest r) {
      answerMemory(channel, r);
    } else if (request instanceof FetchIndexRequest r) {
      Partition p = partition(r.partitionId());
      channel.respond(
          FetchIndexResponse.ok(
              r.requestId(), p.disk.size(), new NettyManagedBuffer(entries(p, 0, p.index.size()))));
    } else if (request instanceof FetchIndexPageRequest r) {
      Partition p = partition(r.partitionId());
      int from = Math.min(r.fromEntry(), p.index.size());
      int to =
          Math.min(
              p.index.size(), from + Math.min(indexPageEntries, r.maxBytes() / IndexEntry.SIZE));
      channel.respond(
          FetchIndexPageResponse.ok(
              r.requestId(),
              p.disk.size(),
              to,
              to < p.index.size(),
              new NettyManagedBuffer(entries(p, from, to))));
    } else if (request instanceof FetchDataRequest r) {
      answerData(channel, r);
    } else {
      channel.respond(
          StatusResponse.error(
              request.requestId(), StatusCode.INVALID_REQUEST, "not served here: " + request));
    }
  }

  /** Index entries {@code [from, to)} of the partition as the wire carries them. */
  private static ByteBuf entries(Partition p, int from, int to) {
    ByteBuf index = PooledByteBufAllocator.DEFAULT.directBuffer();
    for (long[] e : p.index.subList(from, to)) {
      index
          .writeLong(e[0])
          .writeInt((int) e[1])
          .writeInt((int) e[2])
          .writeInt((int) e[3])
          .writeLong(e[4])
          .writeInt((int) e[5]);
    }
    return index;
  }

  /** Answers index pages of at most {@code entries} entries. */
  public synchronized FakeShuffleServer indexPagesOf(int entries) {
    this.indexPageEntries = entries;
    return this;
  }

  private void storePush(TransportChannel channel, PushDataRequest r) {
    ByteBuf body = ((NettyManagedBuffer) r.body()).byteBuf();
    int at = body.readerIndex();
    for (BlockDescriptor d : r.blocks()) {
      byte[] bytes = new byte[d.length()];
      body.getBytes(at, bytes);
      at += d.length();
      partition(d.partitionId())
          .memory
          .add(new Block(d.taskAttemptId(), d.sequence(), bytes, d.crc32c()));
    }
    if (holdPushes) {
      held.add(new Held(channel, r.requestId(), r.body().size()));
      heldBytes += r.body().size();
      maxHeldBytes = Math.max(maxHeldBytes, heldBytes);
    } else {
      channel.respond(StatusResponse.ok(r.requestId()));
    }
  }

  private void answerMemory(TransportChannel channel, FetchMemoryDataRequest r) {
    List<Block> memory = partition(r.partitionId()).memory;
    List<BlockDescriptor> descriptors = new ArrayList<>();
    ByteBuf body = PooledByteBufAllocator.DEFAULT.directBuffer();
    long last = r.afterSequence();
    boolean more = false;
    for (int seq = (int) (r.afterSequence() + 1); seq < memory.size(); seq++) {
      Block b = memory.get(seq);
      if (r.taskAttemptIds().length > 0
          && Arrays.stream(r.taskAttemptIds()).noneMatch(a -> a == b.taskAttemptId())) {
        last = seq;
        continue;
      }
      if (!descriptors.isEmpty() && body.readableBytes() + b.bytes().length > r.maxBytes()) {
        more = true;
        break;
      }
      descriptors.add(
          new BlockDescriptor(
              r.partitionId(),
              b.taskAttemptId(),
              b.sequence(),
              b.bytes().length,
              b.uncompressedLength(),
              b.crc()));
      body.writeBytes(b.bytes());
      last = seq;
    }
    channel.respond(
        FetchMemoryDataResponse.ok(
            r.requestId(), more, last, descriptors, new NettyManagedBuffer(body)));
  }

  private void answerData(TransportChannel channel, FetchDataRequest r) {
    Partition p = partition(r.partitionId());
    byte[] disk = p.disk.toByteArray();
    if (r.offset() < 0 || r.length() < 0 || r.offset() > disk.length - r.length()) {
      channel.respond(
          StatusResponse.error(
              r.requestId(), StatusCode.INVALID_REQUEST, "range outside the data"));
      return;
    }
    long end = r.offset() + r.length();
    Long fileEnd = p.fileEnds.higher(r.offset());
    if (fileEnd != null && fileEnd < end) {
      end = fileEnd;
    }
    ByteBuf body = PooledByteBufAllocator.DEFAULT.directBuffer();
    body.writeBytes(disk, (int) r.offset(), (int) (end - r.offset()));
    channel.respond(FetchDataResponse.ok(r.requestId(), new NettyManagedBuffer(body)));
  }

  private Partition partition(int id) {
    return partitions.computeIfAbsent(id, k -> new Partition());
  }

  private final AtomicBoolean closed = new AtomicBoolean();

  /** Stops listening and drops its connections; clients then see refused connections. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      server.close();
    }
  }
}
