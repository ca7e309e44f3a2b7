package io.sluice.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.sluice.client.core.BlockKey;
import io.sluice.client.core.push.FixedLocations;
import io.sluice.client.core.push.MapOutputPusher;
import io.sluice.client.core.push.PushSettings;
import io.sluice.client.core.read.FetchSettings;
import io.sluice.client.core.read.FetchedBlock;
import io.sluice.client.core.read.PartitionReader;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.Message;
import io.sluice.common.protocol.MessageEncoder;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchIndexResponse;
import io.sluice.common.protocol.message.GetShuffleResultRequest;
import io.sluice.common.protocol.message.GetShuffleResultResponse;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.RegisterApplicationRequest;
import io.sluice.common.protocol.message.RegisterShuffleRequest;
import io.sluice.common.protocol.message.ReplicaChain;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.protocol.message.UnregisterApplicationRequest;
import io.sluice.common.protocol.message.UnregisterShuffleRequest;
import io.sluice.common.shuffle.Backoff;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A test client of shuffle servers. Pushing, committing and reading go through the shuffle-protocol
 * layer every client uses, {@link MapOutputPusher} (with {@link FixedLocations}) and {@link
 * PartitionReader}; the raw helpers send one request and return its answer (or throw its status as
 * a {@link RemoteException}), for tests that must see what the server answers to one specific
 * request.
 */
final class ServerTestClient implements Closeable {
  /** Patient enough for a heavily oversubscribed server: retriable statuses are retried on. */
  static final Backoff BACKOFF = new Backoff(Duration.ofMillis(1), Duration.ofMillis(20), 100_000);

  /** ~1 MiB pushes, at most one in flight per map attempt. */
  static final PushSettings PUSH = new PushSettings(1 << 20, 1 << 20, BACKOFF, 0);

  private static final long READ_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

  final TransportClientFactory factory;
  private final TransportConf transportConf;
  private final ScheduledExecutorService timer;

  /** The server this client talks to unless told otherwise. */
  private final ServerAddress server;

  ServerTestClient(ShuffleServer server) {
    this(address(server));
  }

  ServerTestClient(ServerAddress server) {
    this(server, "test-client");
  }

  /**
   * @param clientId the id this client's handshakes send
   */
  ServerTestClient(ServerAddress server, String clientId) {
    this(server, clientId, SluiceConf.empty());
  }

  /**
   * @param conf the client's transport settings
   */
  ServerTestClient(ServerAddress server, String clientId, SluiceConf conf) {
    this.transportConf = new TransportConf(conf);
    this.factory =
        new TransportContext(transportConf, clientId, PooledByteBufAllocator.DEFAULT)
            .createClientFactory();
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "test-client-timer");
              t.setDaemon(true);
              return t;
            });
    this.server = server;
  }

  /** Where clients reach {@code server}. */
  static ServerAddress address(ShuffleServer server) {
    return new ServerAddress(server.serverId(), "127.0.0.1", server.port());
  }

  /** Every one of {@code numPartitions} partitions at the chain {@code servers}, epoch 0. */
  static List<PartitionLocation> locations(int numPartitions, ServerAddress... servers) {
    return Collections.nCopies(numPartitions, new PartitionLocation(0, List.of(servers)));
  }

  ServerAddress server() {
    return server;
  }

  TransportClient client() throws Exception {
    return factory.getClient(server.host(), server.port());
  }

  // ---- through the shuffle-protocol layer ----

  /** A pusher of one map attempt writing every partition to this client's server. */
  MapOutputPusher pusher(String appId, int shuffleId, int numPartitions, long taskAttemptId) {
    return pusher(appId, shuffleId, locations(numPartitions, server), taskAttemptId, PUSH);
  }

  /** A pusher of one map attempt writing each partition to its fixed location. */
  MapOutputPusher pusher(
      String appId,
      int shuffleId,
      List<PartitionLocation> locations,
      long taskAttemptId,
      PushSettings settings) {
    return new MapOutputPusher(
        factory,
        PooledByteBufAllocator.DEFAULT,
        timer,
        settings,
        new FixedLocations(locations),
        appId,
        shuffleId,
        locations.size(),
        taskAttemptId);
  }

  /** Queues one block; the pusher assigns its sequence and CRC32C. Returns its key. */
  static BlockKey add(MapOutputPusher pusher, long taskAttemptId, int partition, byte[] bytes)
      throws IOException {
    int sequence = pusher.blockCount(partition);
    pusher.add(partition, Unpooled.wrappedBuffer(bytes), bytes.length);
    return new BlockKey(taskAttemptId, sequence);
  }

  /**
   * Writes one map attempt's output through this client's server: pushes the blocks of each
   * partition in order, waits for every acknowledgement and commits. Returns each block's key per
   * partition, in the order given.
   */
  Map<Integer, List<BlockKey>> writeMapOutput(
      String appId,
      int shuffleId,
      int numPartitions,
      int mapIndex,
      long taskAttemptId,
      Map<Integer, List<byte[]>> blocks)
      throws Exception {
    return writeMapOutput(
        appId, shuffleId, locations(numPartitions, server), mapIndex, taskAttemptId, blocks);
  }

  /** As {@link #writeMapOutput(String, int, int, int, long, Map)}, to fixed locations. */
  Map<Integer, List<BlockKey>> writeMapOutput(
      String appId,
      int shuffleId,
      List<PartitionLocation> locations,
      int mapIndex,
      long taskAttemptId,
      Map<Integer, List<byte[]>> blocks)
      throws Exception {
    MapOutputPusher pusher = pusher(appId, shuffleId, locations, taskAttemptId, PUSH);
    Map<Integer, List<BlockKey>> keys = new LinkedHashMap<>();
    try {
      for (Map.Entry<Integer, List<byte[]>> e : blocks.entrySet()) {
        for (byte[] bytes : e.getValue()) {
          keys.computeIfAbsent(e.getKey(), p -> new ArrayList<>())
              .add(add(pusher, taskAttemptId, e.getKey(), bytes));
        }
      }
      pusher.finish();
    } catch (Exception | Error e) {
      pusher.abort();
      throw e;
    }
    pusher.commit(mapIndex);
    return keys;
  }

  /** The distinct map attempts of {@code blocks}: what a reader counts for them. */
  static long[] attemptsOf(Collection<BlockKey> blocks) {
    return blocks.stream().mapToLong(BlockKey::taskAttemptId).distinct().sorted().toArray();
  }

  /** Reads a partition of the given attempts from this client's server; see {@link #read}. */
  Map<BlockKey, byte[]> readPartition(
      String appId, int shuffleId, int partition, long... taskAttemptIds) throws Exception {
    return read(
        appId,
        shuffleId,
        partition,
        List.of(new PartitionLocation(0, List.of(server))),
        taskAttemptIds);
  }

  /**
   * Reads one partition through {@link PartitionReader}: every block the counted attempts committed
   * at the locations, each once, CRC32C-checked. Returns the blocks' bytes by key, in the order
   * received; a block delivered twice fails the test.
   *
   * @throws io.sluice.client.core.read.PartitionFetchException if the partition cannot be read
   *     completely
   */
  Map<BlockKey, byte[]> read(
      String appId,
      int shuffleId,
      int partition,
      List<PartitionLocation> locations,
      long... taskAttemptIds)
      throws Exception {
    FetchSettings settings =
        FetchSettings.of(64L << 20, 1L << 20, transportConf.maxFrameSize(), BACKOFF);
    Map<BlockKey, byte[]> blocks = new LinkedHashMap<>();
    long deadline = System.nanoTime() + READ_TIMEOUT_NANOS;
    try (PartitionReader reader =
        new PartitionReader(
            appId,
            shuffleId,
            List.of(new PartitionReader.PartitionSource(partition, locations, taskAttemptIds)),
            settings,
            factory,
            PooledByteBufAllocator.DEFAULT,
            timer)) {
      reader.start();
      FetchedBlock block;
      while ((block =
              reader.take(
                  () -> {
                    if (System.nanoTime() > deadline) {
                      throw new AssertionError(
                          "reading partition " + partition + " took over 60 s");
                    }
                  }))
          != null) {
        try {
          if (block.partition() != partition) {
            throw new AssertionError(block + " delivered for partition " + partition);
          }
          BlockKey key = new BlockKey(block.taskAttemptId(), block.sequence());
          byte[] previous = blocks.put(key, ByteBufUtil.getBytes(block.data()));
          if (previous != null) {
            throw new AssertionError(block + " delivered twice");
          }
        } finally {
          reader.consumed(block);
        }
      }
    }
    return blocks;
  }

  // ---- raw single requests ----

  void registerApp(String appId) throws Exception {
    send(
        new RegisterApplicationRequest(TransportClient.nextRequestId(), appId, "tester"),
        StatusResponse.class);
  }

  void registerShuffle(String appId, int shuffleId, int partitions) throws Exception {
    send(
        new RegisterShuffleRequest(TransportClient.nextRequestId(), appId, shuffleId, partitions),
        StatusResponse.class);
  }

  void unregisterShuffle(String appId, int shuffleId) throws Exception {
    send(
        new UnregisterShuffleRequest(TransportClient.nextRequestId(), appId, shuffleId),
        StatusResponse.class);
  }

  void unregisterApp(String appId) throws Exception {
    send(
        new UnregisterApplicationRequest(TransportClient.nextRequestId(), appId),
        StatusResponse.class);
  }

  /**
   * One push request of {@code blocks} (their bytes back to back in {@code data}), answered once
   * and not retried: a refusal is thrown as a {@link RemoteException} with the server's status.
   */
  void pushRaw(
      String appId,
      int shuffleId,
      List<ReplicaChain> chains,
      List<BlockDescriptor> blocks,
      byte[]... data)
      throws Exception {
    ByteBuf body = Unpooled.directBuffer();
    for (byte[] d : data) {
      body.writeBytes(d);
    }
    PushDataRequest push;
    try {
      push =
          new PushDataRequest(
              TransportClient.nextRequestId(),
              appId,
              shuffleId,
              chains,
              blocks,
              new NettyManagedBuffer(body));
    } catch (RuntimeException e) {
      body.release();
      throw e;
    }
    send(push, StatusResponse.class);
  }

  /** The block count each attempt committed to the partition, -1 where none. */
  int[] committedCounts(String appId, int shuffleId, int partition, long... attempts)
      throws Exception {
    return send(
            new GetShuffleResultRequest(
                TransportClient.nextRequestId(), appId, shuffleId, partition, attempts),
            GetShuffleResultResponse.class)
        .blockCounts();
  }

  /** Sends one request to this client's server and waits for its answer; the caller owns it. */
  <R extends ResponseMessage> R send(RequestMessage request, Class<R> type) throws Exception {
    return await(client().request(request, type));
  }

  /** The future's value, with the cause of a failure thrown as itself. */
  static <T> T await(CompletableFuture<T> f) throws Exception {
    try {
      return f.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception ex) {
        throw ex;
      }
      throw e;
    }
  }

  /** The status of the first {@link RemoteException} in {@code t}'s cause chain, or null. */
  static StatusCode statusOf(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof RemoteException r) {
        return r.status();
      }
    }
    return null;
  }

  /**
   * A push of one block to {@code appId} whose frame is exactly {@code frameLength} bytes, for
   * tests that fill or stall frames of a given size.
   */
  static PushDataRequest pushFillingFrame(String appId, int frameLength) {
    int lengthField = 4;
    int header = encode(pushWithBody(appId, 0)).length - lengthField;
    return pushWithBody(appId, frameLength - header);
  }

  private static PushDataRequest pushWithBody(String appId, int body) {
    return new PushDataRequest(
        2,
        appId,
        0,
        List.of(),
        List.of(new BlockDescriptor(0, 1L, 0, body, body, 0)),
        new NettyManagedBuffer(Unpooled.wrappedBuffer(new byte[body])));
  }

  /** {@code message} as the bytes of its frame, for tests that write to a socket themselves. */
  static byte[] encode(Message message) {
    EmbeddedChannel channel = new EmbeddedChannel(new MessageEncoder(false));
    channel.writeOutbound(message);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Object part;
    while ((part = channel.readOutbound()) != null) {
      ByteBuf buf = (ByteBuf) part;
      bytes.writeBytes(ByteBufUtil.getBytes(buf));
      buf.release();
    }
    channel.finishAndReleaseAll();
    return bytes.toByteArray();
  }

  /** The length of a partition's data files on the server: what its flushes wrote so far. */
  long dataOnDisk(String appId, int shuffleId, int partitionId) throws Exception {
    FetchIndexResponse index =
        send(
            new FetchIndexRequest(TransportClient.nextRequestId(), appId, shuffleId, partitionId),
            FetchIndexResponse.class);
    try {
      return index.dataFileLength();
    } finally {
      release(index);
    }
  }

  /** Releases a message that may hold a body. */
  static void release(Object message) {
    ReferenceCountUtil.release(message);
  }

  @Override
  public void close() {
    factory.close();
    timer.shutdownNow();
  }
}
