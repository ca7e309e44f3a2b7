package io.sluice.client.spark.read;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.common.block.BlockIdLayout;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchIndexResponse;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.FetchMemoryDataResponse;
import io.sluice.common.protocol.message.GetShuffleResultRequest;
import io.sluice.common.protocol.message.GetShuffleResultResponse;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.RequestHandler;
import io.sluice.common.transport.TransportChannel;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportServer;
import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A shuffle server for reader tests, on a real socket: holds partitions' blocks in "memory" and on
 * "disk" (a byte array and its index) with the server's read semantics, answers reads short where
 * a test marks a file boundary, and fails or ignores requests on demand.
 */
final class FakeShuffleServer implements RequestHandler, AutoCloseable {
  static final BlockIdLayout LAYOUT = BlockIdLayout.DEFAULT;

  /** A stored block. */
  record Block(long taskAttemptId, long blockId, byte[] bytes) {
    int crc() {
      return Crc32c.of(bytes);
    }

    /** The fetcher passes the uncompressed length through; a recognisable value will do. */
    int uncompressedLength() {
      return bytes.length * 3;
    }
  }

  private static final class Partition {
    final List<Block> memory = new ArrayList<>();
    final ByteArrayOutputStream disk = new ByteArrayOutputStream();
    final List<long[]> index = new ArrayList<>();
    final Map<Long, List<Long>> committed = new HashMap<>();
    final TreeSet<Long> fileEnds = new TreeSet<>();
  }

  private enum Fault { ERROR, SILENCE }

  private record Injected(Fault fault, StatusCode status) {}

  private final TransportServer server;
  private final Map<Integer, Partition> partitions = new HashMap<>();
  private final Map<Class<?>, Deque<Injected>> faults = new HashMap<>();
  private final List<RequestMessage> received = new ArrayList<>();

  FakeShuffleServer() {
    server = new TransportContext(new TransportConf(SluiceConf.empty()), "fake-server",
        PooledByteBufAllocator.DEFAULT).createServer("127.0.0.1", 0, this);
  }

  int port() {
    return server.port();
  }

  /** Random bytes as block {@code sequence} that {@code attempt} wrote for {@code partition}. */
  static Block block(int partition, long attempt, int sequence, int size) {
    byte[] bytes = new byte[size];
    ThreadLocalRandom.current().nextBytes(bytes);
    return new Block(attempt, LAYOUT.blockId(sequence, partition, attempt), bytes);
  }

  synchronized FakeShuffleServer inMemory(int partition, Block... blocks) {
    partition(partition).memory.addAll(List.of(blocks));
    return this;
  }

  synchronized FakeShuffleServer onDisk(int partition, Block... blocks) {
    Partition p = partition(partition);
    for (Block b : blocks) {
      p.index.add(new long[] {p.disk.size(), b.bytes().length, b.uncompressedLength(), b.crc(),
          b.blockId(), b.taskAttemptId()});
      p.disk.writeBytes(b.bytes());
    }
    return this;
  }

  /** Reads of this partition's data stop at the current end of its data, as at a file's end. */
  synchronized FakeShuffleServer endFileHere(int partition) {
    Partition p = partition(partition);
    p.fileEnds.add((long) p.disk.size());
    return this;
  }

  /** Reads stop at {@code offset} too (a real server never cuts inside a block; a reader copes). */
  synchronized FakeShuffleServer endFileAt(int partition, long offset) {
    partition(partition).fileEnds.add(offset);
    return this;
  }

  synchronized FakeShuffleServer commit(int partition, Block... blocks) {
    for (Block b : blocks) {
      commitIds(partition, b.taskAttemptId(), b.blockId());
    }
    return this;
  }

  synchronized FakeShuffleServer commitIds(int partition, long attempt, long... ids) {
    List<Long> list =
        partition(partition).committed.computeIfAbsent(attempt, k -> new ArrayList<>());
    for (long id : ids) {
      list.add(id);
    }
    return this;
  }

  /** The next {@code times} requests of {@code type} are answered with {@code status}. */
  synchronized FakeShuffleServer failNext(Class<?> type, StatusCode status, int times) {
    for (int i = 0; i < times; i++) {
      faults.computeIfAbsent(type, k -> new ArrayDeque<>()).add(new Injected(Fault.ERROR, status));
    }
    return this;
  }

  /** The next request of {@code type} is never answered. */
  synchronized FakeShuffleServer ignoreNext(Class<?> type) {
    faults.computeIfAbsent(type, k -> new ArrayDeque<>()).add(new Injected(Fault.SILENCE, null));
    return this;
  }

  /** Every request received so far, of the given type. */
  synchronized <T extends RequestMessage> List<T> received(Class<T> type) {
    return received.stream().filter(type::isInstance).map(type::cast).toList();
  }

  @Override
  public synchronized void handle(TransportChannel channel, RequestMessage request) {
    received.add(request);
    Deque<Injected> injected = faults.get(request.getClass());
    if (injected != null && !injected.isEmpty()) {
      Injected fault = injected.poll();
      if (fault.fault() == Fault.ERROR) {
        channel.respond(StatusResponse.error(request.requestId(), fault.status(), "injected"));
      }
      return;
    }
    if (request instanceof GetShuffleResultRequest r) {
      List<Long> ids = new ArrayList<>();
      for (long attempt : r.taskAttemptIds()) {
        ids.addAll(partition(r.partitionId()).committed.getOrDefault(attempt, List.of()));
      }
      channel.respond(GetShuffleResultResponse.ok(r.requestId(),
          ids.stream().mapToLong(Long::longValue).distinct().toArray()));
    } else if (request instanceof FetchMemoryDataRequest r) {
      answerMemory(channel, r);
    } else if (request instanceof FetchIndexRequest r) {
      Partition p = partition(r.partitionId());
      ByteBuf index = PooledByteBufAllocator.DEFAULT.directBuffer();
      for (long[] e : p.index) {
        index.writeLong(e[0]).writeInt((int) e[1]).writeInt((int) e[2]).writeInt((int) e[3])
            .writeLong(e[4]).writeLong(e[5]);
      }
      channel.respond(FetchIndexResponse.ok(r.requestId(), p.disk.size(),
          new NettyManagedBuffer(index)));
    } else if (request instanceof FetchDataRequest r) {
      answerData(channel, r);
    } else {
      channel.respond(StatusResponse.error(request.requestId(), StatusCode.INVALID_REQUEST,
          "not served here: " + request));
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
      if (!descriptors.isEmpty() && body.readableBytes() + b.bytes().length > r.maxBytes()) {
        more = true;
        break;
      }
      descriptors.add(new BlockDescriptor(r.partitionId(), b.blockId(), b.taskAttemptId(),
          b.bytes().length, b.uncompressedLength(), b.crc()));
      body.writeBytes(b.bytes());
      last = seq;
    }
    channel.respond(FetchMemoryDataResponse.ok(r.requestId(), more, last, descriptors,
        new NettyManagedBuffer(body)));
  }

  private void answerData(TransportChannel channel, FetchDataRequest r) {
    Partition p = partition(r.partitionId());
    byte[] disk = p.disk.toByteArray();
    if (r.offset() < 0 || r.length() < 0 || r.offset() > disk.length - r.length()) {
      channel.respond(StatusResponse.error(r.requestId(), StatusCode.INVALID_REQUEST,
          "range outside the data"));
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

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      server.close();
    }
  }
}
