package io.sluice.client.spark.write;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.sluice.client.spark.Retries;
import io.sluice.client.spark.ShuffleAssignment;
import io.sluice.client.spark.SluiceClientContext;
import io.sluice.client.spark.SluiceClientOptions;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.TransportClient;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Packs a map task's blocks into one large push per server and sends them asynchronously, with at
 * most {@code spark.sluice.push.max.in.flight} bytes unacknowledged: the task waits only when it
 * would pass that, and at the end. A push refused with a retriable status is sent again after a
 * back-off; anything else fails the task at its next call.
 */
final class BlockPusher {
  private final SluiceClientContext client;
  private final ShuffleAssignment assignment;
  private final String appId;
  private final int shuffleId;
  private final long batchSize;
  private final long maxInFlight;
  private final int retries;
  private final Duration retryWait;
  private final Batch[] batches;
  private long inFlight;
  private Throwable failure;
  private long waitNanos;

  BlockPusher(SluiceClientContext client, ShuffleAssignment assignment, String appId,
      int shuffleId) {
    this.client = client;
    this.assignment = assignment;
    this.appId = appId;
    this.shuffleId = shuffleId;
    this.batchSize = client.conf().get(SluiceClientOptions.PUSH_BATCH_SIZE);
    this.maxInFlight = Math.max(batchSize, client.conf().get(SluiceClientOptions.PUSH_MAX_IN_FLIGHT));
    this.retries = client.conf().get(SluiceClientOptions.PUSH_RETRIES);
    this.retryWait = client.conf().get(SluiceClientOptions.RETRY_WAIT);
    this.batches = new Batch[assignment.serverCount()];
  }

  /** Queues a block; takes ownership of {@code data}. May block while too much is in flight. */
  void add(BlockDescriptor block, ByteBuf data) throws IOException {
    int server = assignment.serverOf(block.partitionId());
    Batch batch = batches[server];
    if (batch == null) {
      batch = new Batch(client.allocator().compositeDirectBuffer(Integer.MAX_VALUE));
      batches[server] = batch;
    }
    batch.blocks.add(block);
    batch.body.addComponent(true, data);
    if (batch.body.readableBytes() >= batchSize) {
      send(server);
    }
  }

  /** Sends what is left and waits until every push is acknowledged. */
  void finish() throws IOException {
    for (int server = 0; server < batches.length; server++) {
      if (batches[server] != null && !batches[server].blocks.isEmpty()) {
        send(server);
      }
    }
    awaitInFlight(0);
    checkFailure();
  }

  /** Releases queued blocks after a failure; pushes in flight release their own. */
  void abort() {
    for (int server = 0; server < batches.length; server++) {
      if (batches[server] != null) {
        batches[server].body.release();
        batches[server] = null;
      }
    }
  }

  /** Nanoseconds the task spent waiting for acknowledgements. */
  long waitNanos() {
    return waitNanos;
  }

  private void send(int server) throws IOException {
    Batch batch = batches[server];
    batches[server] = null;
    long size = batch.body.readableBytes();
    try {
      awaitInFlight(maxInFlight - size);
      checkFailure();
    } catch (IOException | RuntimeException e) {
      batch.body.release();
      throw e;
    }
    synchronized (this) {
      inFlight += size;
    }
    List<BlockDescriptor> blocks = List.copyOf(batch.blocks);
    CompositeByteBuf body = batch.body;
    CompletableFuture<StatusResponse> pushed = Retries.withRetries(() -> {
      try {
        TransportClient c = client.clients().getClient(assignment.host(server),
            assignment.port(server));
        // Every attempt sends its own view of the body; the batch keeps one reference until done.
        return c.request(new PushDataRequest(TransportClient.nextRequestId(), appId, shuffleId,
            PushDataRequest.NO_TICKET, List.of(), blocks,
            new NettyManagedBuffer(body.retainedDuplicate())), StatusResponse.class);
      } catch (IOException e) {
        return CompletableFuture.failedFuture(new IOException("cannot push to server "
            + assignment.describe(server) + ": " + e.getMessage(), e));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return CompletableFuture.failedFuture(e);
      }
    }, retries, retryWait, client.scheduler());
    pushed.whenComplete((ok, error) -> {
      body.release();
      synchronized (this) {
        inFlight -= size;
        if (error != null && failure == null) {
          failure = error;
        }
        notifyAll();
      }
    });
  }

  private synchronized void awaitInFlight(long atMost) throws IOException {
    long start = System.nanoTime();
    try {
      while (inFlight > Math.max(0, atMost) && failure == null) {
        wait();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for pushes to be acknowledged");
    } finally {
      waitNanos += System.nanoTime() - start;
    }
  }

  private synchronized void checkFailure() throws IOException {
    if (failure != null) {
      throw failure instanceof IOException io
          ? new IOException("push of shuffle " + shuffleId + " failed: " + io.getMessage(), io)
          : new IOException("push of shuffle " + shuffleId + " failed", failure);
    }
  }

  private static final class Batch {
    final List<BlockDescriptor> blocks = new ArrayList<>();
    final CompositeByteBuf body;

    Batch(CompositeByteBuf body) {
      this.body = body;
    }
  }
}
