package io.sluice.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.CommitMapOutputRequest;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchIndexResponse;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.FetchMemoryDataResponse;
import io.sluice.common.protocol.message.GetShuffleResultRequest;
import io.sluice.common.protocol.message.GetShuffleResultResponse;
import io.sluice.common.protocol.message.PartitionBlockIds;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.RegisterApplicationRequest;
import io.sluice.common.protocol.message.RegisterShuffleRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.protocol.message.UnregisterShuffleRequest;
import io.sluice.common.protocol.message.UnregisterApplicationRequest;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.server.storage.IndexEntry;
import java.io.Closeable;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** A plain, synchronous client of one shuffle server, for tests: push, commit and read back. */
final class ServerTestClient implements Closeable {
  final TransportClientFactory factory;
  private final String host;
  private final int port;
  final AtomicLong noBufferRetries = new AtomicLong();

  ServerTestClient(String host, int port) {
    this.factory = new TransportContext(new TransportConf(SluiceConf.empty()), "test-client",
        PooledByteBufAllocator.DEFAULT).createClientFactory();
    this.host = host;
    this.port = port;
  }

  TransportClient client() throws Exception {
    return factory.getClient(host, port);
  }

  void registerApp(String appId) throws Exception {
    ok(client().request(new RegisterApplicationRequest(TransportClient.nextRequestId(), appId,
        "tester"), StatusResponse.class));
  }

  void registerShuffle(String appId, int shuffleId, int partitions) throws Exception {
    ok(client().request(new RegisterShuffleRequest(TransportClient.nextRequestId(), appId,
        shuffleId, partitions, new int[0]), StatusResponse.class));
  }

  /** Pushes blocks (one frame), retrying while the server answers NO_BUFFER. */
  void push(String appId, int shuffleId, List<BlockDescriptor> blocks, byte[][] data)
      throws Exception {
    while (true) {
      ByteBuf body = Unpooled.directBuffer();
      for (byte[] d : data) {
        body.writeBytes(d);
      }
      try {
        ok(client().request(new PushDataRequest(TransportClient.nextRequestId(), appId, shuffleId,
            PushDataRequest.NO_TICKET, List.of(), blocks, new NettyManagedBuffer(body)),
            StatusResponse.class));
        return;
      } catch (RemoteException e) {
        if (e.status() != StatusCode.NO_BUFFER) {
          throw e;
        }
        noBufferRetries.incrementAndGet();
        Thread.sleep(5);
      }
    }
  }

  void commit(String appId, int shuffleId, int mapIndex, long attempt,
      Map<Integer, long[]> blockIds) throws Exception {
    List<PartitionBlockIds> parts = new ArrayList<>();
    blockIds.forEach((p, ids) -> parts.add(new PartitionBlockIds(p, ids)));
    ok(client().request(new CommitMapOutputRequest(TransportClient.nextRequestId(), appId,
        shuffleId, mapIndex, attempt, parts), StatusResponse.class));
  }

  long[] committed(String appId, int shuffleId, int partition, long[] attempts) throws Exception {
    GetShuffleResultResponse r = await(client().request(new GetShuffleResultRequest(
        TransportClient.nextRequestId(), appId, shuffleId, partition, attempts),
        GetShuffleResultResponse.class));
    return r.blockIds();
  }

  void unregisterShuffle(String appId, int shuffleId) throws Exception {
    ok(client().request(new UnregisterShuffleRequest(TransportClient.nextRequestId(), appId,
        shuffleId), StatusResponse.class));
  }

  void unregisterApp(String appId) throws Exception {
    ok(client().request(new UnregisterApplicationRequest(TransportClient.nextRequestId(), appId),
        StatusResponse.class));
  }

  /**
   * Reads a partition the way a reducer must: memory first, then the index and the data on disk,
   * dropping duplicates by block id. Returns block id -> bytes in the order first seen.
   */
  Map<Long, byte[]> readPartition(String appId, int shuffleId, int partition) throws Exception {
    Map<Long, byte[]> blocks = new LinkedHashMap<>();
    long after = FetchMemoryDataRequest.FROM_START;
    boolean more = true;
    while (more) {
      FetchMemoryDataResponse r = await(client().request(new FetchMemoryDataRequest(
          TransportClient.nextRequestId(), appId, shuffleId, partition, after, 1 << 20),
          FetchMemoryDataResponse.class));
      try (InputStream in = r.body().createInputStream()) {
        for (BlockDescriptor b : r.blocks()) {
          blocks.putIfAbsent(b.blockId(), in.readNBytes(b.length()));
        }
      } finally {
        ReferenceCountUtil.release(r);
      }
      more = r.hasMore();
      after = r.lastSequence();
    }
    FetchIndexResponse index = await(client().request(new FetchIndexRequest(
        TransportClient.nextRequestId(), appId, shuffleId, partition),
        FetchIndexResponse.class));
    List<IndexEntry> entries = new ArrayList<>();
    try (InputStream in = index.body().createInputStream()) {
      ByteBuffer buf = ByteBuffer.wrap(in.readAllBytes());
      while (buf.remaining() >= IndexEntry.SIZE) {
        entries.add(IndexEntry.readFrom(buf));
      }
    } finally {
      ReferenceCountUtil.release(index);
    }
    for (IndexEntry e : entries) {
      if (blocks.containsKey(e.blockId())) {
        continue;
      }
      blocks.put(e.blockId(), readData(appId, shuffleId, partition, e.offset(), e.length()));
    }
    return blocks;
  }

  private byte[] readData(String appId, int shuffleId, int partition, long offset, int length)
      throws Exception {
    byte[] out = new byte[length];
    int done = 0;
    while (done < length) {
      FetchDataResponse r = client().request(new FetchDataRequest(TransportClient.nextRequestId(),
          appId, shuffleId, partition, offset + done, length - done), FetchDataResponse.class)
          .get(30, TimeUnit.SECONDS);
      try (InputStream in = r.body().createInputStream()) {
        byte[] got = in.readAllBytes();
        System.arraycopy(got, 0, out, done, got.length);
        done += got.length;
        if (got.length == 0) {
          throw new IllegalStateException("empty data read at " + (offset + done));
        }
      } finally {
        ReferenceCountUtil.release(r);
      }
    }
    return out;
  }

  private static void ok(java.util.concurrent.CompletableFuture<StatusResponse> f)
      throws Exception {
    await(f);
  }

  /** The future's value, with the cause of a failure thrown as itself. */
  static <T> T await(java.util.concurrent.CompletableFuture<T> f) throws Exception {
    try {
      return f.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception ex) {
        throw ex;
      }
      throw e;
    }
  }

  @Override
  public void close() {
    factory.close();
  }
}
