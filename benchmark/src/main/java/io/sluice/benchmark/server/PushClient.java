package io.sluice.benchmark.server;

import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.CommitMapOutputRequest;
import io.sluice.common.protocol.message.PartitionBlockIds;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.TransportClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * One map task's pushes on a connection of its own: frames of {@link #FRAME_BYTES} made of blocks of
 * {@link #MIN_BLOCK_BYTES}-{@link #MAX_BLOCK_BYTES} with their CRC32C, sent without waiting for
 * answers but with at most {@link #IN_FLIGHT_BYTES} unanswered. A frame refused with a retriable
 * status (NO_BUFFER when the server's push memory is full) is sent again after an exponential
 * back-off, still counted in flight, so a refused client slows down. The blocks of answered frames
 * are the acknowledged ones; {@link #commit()} reports their ids as the map task's output.
 */
final class PushClient {
  static final int FRAME_BYTES = 2 << 20;
  static final int MIN_BLOCK_BYTES = 64 << 10;
  static final int MAX_BLOCK_BYTES = 256 << 10;
  /** As the Spark client's default {@code spark.sluice.push.max.in.flight}. */
  static final int IN_FLIGHT_BYTES = 32 << 20;
  static final long FIRST_BACKOFF_MICROS = 2_000;
  static final long MAX_BACKOFF_MICROS = 64_000;
  private static final long DRAIN_TIMEOUT_SECONDS = 180;

  private final TransportClient connection;
  private final RandomPayload payload;
  private final ScheduledExecutorService retryTimer;
  private final String appId;
  private final int shuffleId;
  private final int partitions;
  private final int mapIndex;
  private final long shareBytes;
  private final Semaphore inFlight = new Semaphore(IN_FLIGHT_BYTES);
  private final List<BlockDescriptor> acknowledged = new ArrayList<>();
  private final LongAdder retries = new LongAdder();
  private final LongAdder retriedBytes = new LongAdder();
  private final AtomicInteger mostRefusals = new AtomicInteger();
  private final AtomicLong longestWaitNanos = new AtomicLong();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  /**
   * @param mapIndex this client's map index, also its task attempt id and the high bits of its
   *     block ids, so that ids are unique within the shuffle
   */
  PushClient(TransportClient connection, RandomPayload payload, ScheduledExecutorService retryTimer,
      String appId, int shuffleId, int partitions, int mapIndex, long shareBytes) {
    this.connection = connection;
    this.payload = payload;
    this.retryTimer = retryTimer;
    this.appId = appId;
    this.shuffleId = shuffleId;
    this.partitions = partitions;
    this.mapIndex = mapIndex;
    this.shareBytes = shareBytes;
  }

  /** Pushes this client's share and returns once every frame is acknowledged. */
  void push() throws InterruptedException {
    Random random = new Random(31L * mapIndex + shuffleId);
    long nextBlockId = (long) mapIndex << 40;
    long sent = 0;
    while (sent < shareBytes && failure.get() == null) {
      List<BlockDescriptor> blocks = new ArrayList<>();
      List<Integer> offsets = new ArrayList<>();
      int frameBytes = 0;
      while (frameBytes < FRAME_BYTES && sent + frameBytes < shareBytes) {
        int length = (int) Math.min(shareBytes - sent - frameBytes,
            MIN_BLOCK_BYTES + random.nextInt(MAX_BLOCK_BYTES - MIN_BLOCK_BYTES + 1));
        int offset = random.nextInt(payload.size() - length + 1);
        blocks.add(new BlockDescriptor(random.nextInt(partitions), nextBlockId++, mapIndex, length,
            length, payload.crc32c(offset, length)));
        offsets.add(offset);
        frameBytes += length;
      }
      inFlight.acquire(frameBytes);
      send(new Frame(List.copyOf(blocks), offsets.stream().mapToInt(Integer::intValue).toArray(),
          frameBytes, 0, System.nanoTime()));
      sent += frameBytes;
    }
    if (!inFlight.tryAcquire(IN_FLIGHT_BYTES, DRAIN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      throw new IllegalStateException("pushes of map " + mapIndex + " still unanswered after "
          + DRAIN_TIMEOUT_SECONDS + " s");
    }
    inFlight.release(IN_FLIGHT_BYTES);
    Throwable error = failure.get();
    if (error != null) {
      throw new IllegalStateException("a push of map " + mapIndex + " failed: " + error, error);
    }
  }

  /** Reports the acknowledged blocks' ids, per partition, as this map task's output. */
  void commit() throws Exception {
    Map<Integer, List<Long>> byPartition = new HashMap<>();
    for (BlockDescriptor b : acknowledged()) {
      byPartition.computeIfAbsent(b.partitionId(), p -> new ArrayList<>()).add(b.blockId());
    }
    List<PartitionBlockIds> parts = new ArrayList<>();
    byPartition.forEach((p, ids) ->
        parts.add(new PartitionBlockIds(p, ids.stream().mapToLong(Long::longValue).toArray())));
    Requests.await(connection.request(new CommitMapOutputRequest(TransportClient.nextRequestId(),
        appId, shuffleId, mapIndex, mapIndex, parts), StatusResponse.class));
  }

  /** The blocks the server acknowledged, in the order of their answers. */
  List<BlockDescriptor> acknowledged() {
    synchronized (acknowledged) {
      return List.copyOf(acknowledged);
    }
  }

  long retries() {
    return retries.sum();
  }

  long retriedBytes() {
    return retriedBytes.sum();
  }

  /** The most times one frame was refused before it was taken. */
  int mostRefusals() {
    return mostRefusals.get();
  }

  /** The longest time from a frame's first sending to its acknowledgement, refusals included. */
  long longestWaitNanos() {
    return longestWaitNanos.get();
  }

  private void send(Frame frame) {
    if (failure.get() != null) {
      inFlight.release(frame.bytes());
      return;
    }
    try {
      // The body is slices of the shared payload, one reference each; the request owns them.
      CompositeByteBuf body = Unpooled.compositeBuffer(frame.blocks().size());
      for (int i = 0; i < frame.offsets().length; i++) {
        body.addComponent(true,
            payload.retainedSlice(frame.offsets()[i], frame.blocks().get(i).length()));
      }
      PushDataRequest request;
      try {
        request = new PushDataRequest(TransportClient.nextRequestId(), appId, shuffleId,
            PushDataRequest.NO_TICKET, List.of(), frame.blocks(), new NettyManagedBuffer(body));
      } catch (RuntimeException e) {
        body.release();
        throw e;
      }
      connection.request(request, StatusResponse.class)
          .whenComplete((ok, error) -> answered(frame, error));
    } catch (RuntimeException e) {
      fail(frame, e);
    }
  }

  private void answered(Frame frame, Throwable error) {
    if (error == null) {
      longestWaitNanos.accumulateAndGet(System.nanoTime() - frame.firstSentNanos(), Math::max);
      synchronized (acknowledged) {
        acknowledged.addAll(frame.blocks());
      }
      inFlight.release(frame.bytes());
      return;
    }
    Throwable cause = error instanceof CompletionException && error.getCause() != null
        ? error.getCause() : error;
    if (cause instanceof RemoteException remote && retriable(remote.status())) {
      retries.increment();
      retriedBytes.add(frame.bytes());
      mostRefusals.accumulateAndGet(frame.attempt() + 1, Math::max);
      long backoff = Math.min(MAX_BACKOFF_MICROS,
          FIRST_BACKOFF_MICROS << Math.min(frame.attempt(), 10));
      // Jitter keeps refused clients from coming back in lockstep.
      long delay = backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1);
      retryTimer.schedule(() -> send(frame.retried()), delay, TimeUnit.MICROSECONDS);
      return;
    }
    fail(frame, cause);
  }

  private static boolean retriable(StatusCode status) {
    return status == StatusCode.NO_BUFFER || status == StatusCode.BUSY;
  }

  private void fail(Frame frame, Throwable error) {
    failure.compareAndSet(null, error);
    inFlight.release(frame.bytes());
  }

  /**
   * The blocks of one push, where their bytes are in the payload, how often it was refused, and
   * when it was first sent.
   */
  private record Frame(List<BlockDescriptor> blocks, int[] offsets, int bytes, int attempt,
      long firstSentNanos) {
    Frame retried() {
      return new Frame(blocks, offsets, bytes, attempt + 1, firstSentNanos);
    }
  }
}
