package io.sluice.server.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.sluice.common.auth.Credentials;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.ReplicaChain;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.shuffle.Retries;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.server.ServerOptions;
import io.sluice.server.shuffle.RequestRejectedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * Chain replication's forwarding step: sends the blocks of a push that carry a replica chain to the
 * next server of each chain, with the rest of the chain, so that a client pushes each block once
 * whatever the replica count. The blocks travel as slices of the copies this server holds in its
 * push pool (no further copy); the receiver admits them into its own pool like any push, and
 * forwards further when its chain goes on.
 */
public final class ReplicaForwarder {
  /**
   * How the client ids of the connections a server forwards on begin (the handshake's {@code
   * clientId}): a server receiving pushes on such a connection reads them at once even when its
   * pool is short of room, since the sender holds what it forwards in its own pool meanwhile (see
   * {@code PushMemoryGate}).
   */
  public static final String CLIENT_ID_PREFIX = "sluice-replica:";

  private final TransportClientFactory peers;
  private final Function<String, Credentials> credentials;
  private final ByteBufAllocator allocator;
  private final Duration timeout;

  /**
   * @param peers connections to other servers
   * @param credentials how a forward for an application authenticates at the next server (as that
   *     application, with the secret this server holds for it)
   * @param timeout how long to wait for the next server's answer ({@code replication.timeout})
   */
  public ReplicaForwarder(
      TransportClientFactory peers,
      Function<String, Credentials> credentials,
      ByteBufAllocator allocator,
      Duration timeout) {
    this.peers = peers;
    this.credentials = credentials;
    this.allocator = allocator;
    this.timeout = timeout;
  }

  /**
   * Forwards the chained blocks. {@code copies[i]} holds the bytes of {@code blocks.get(i)}; the
   * caller keeps its references (each forward takes its own). Completes when every next server has
   * acknowledged, or fails with a {@link RequestRejectedException}: NO_BUFFER (retriable) when a
   * next server's memory is full, REPLICA_UNAVAILABLE when one cannot take the push at all.
   */
  public CompletableFuture<Void> forward(
      String appId,
      int shuffleId,
      List<ReplicaChain> chains,
      List<BlockDescriptor> blocks,
      ByteBuf[] copies) {
    Map<Integer, ReplicaChain> chainOf = new HashMap<>();
    for (ReplicaChain chain : chains) {
      if (!chain.replicas().isEmpty()) {
        chainOf.put(chain.partitionId(), chain);
      }
    }
    Map<ServerAddress, Hop> hops = new LinkedHashMap<>();
    for (int i = 0; i < blocks.size(); i++) {
      ReplicaChain chain = chainOf.get(blocks.get(i).partitionId());
      if (chain != null) {
        hops.computeIfAbsent(chain.replicas().get(0), s -> new Hop())
            .add(chain, blocks.get(i), copies[i]);
      }
    }
    List<CompletableFuture<Void>> sent = new ArrayList<>();
    for (Map.Entry<ServerAddress, Hop> e : hops.entrySet()) {
      sent.add(send(appId, shuffleId, e.getKey(), e.getValue()));
    }
    return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]));
  }

  private CompletableFuture<Void> send(String appId, int shuffleId, ServerAddress next, Hop hop) {
    CompositeByteBuf body = allocator.compositeDirectBuffer(Integer.MAX_VALUE);
    for (ByteBuf copy : hop.data) {
      body.addComponent(true, copy.retainedSlice());
    }
    PushDataRequest forward;
    try {
      forward =
          new PushDataRequest(
              TransportClient.nextRequestId(),
              appId,
              shuffleId,
              List.copyOf(hop.rest.values()),
              hop.blocks,
              new NettyManagedBuffer(body));
    } catch (RuntimeException e) {
      body.release();
      throw e;
    }
    // Whoever claims the forward first owns it: the send, or the release where the connection
    // failed or the replication timeout struck first. A connection made after the timeout does
    // not send it (the compose below is skipped once its future is done) and must not leak it.
    AtomicBoolean claimed = new AtomicBoolean();
    return peers
        .getClientAsync(next.host(), next.port(), credentials.apply(appId))
        // A replica in doubt (frozen, or cut off) is left at once: the client relocates.
        .thenCompose(
            c ->
                claimed.compareAndSet(false, true)
                    ? c.requestOrLeave(forward, StatusResponse.class)
                    : CompletableFuture.<StatusResponse>failedFuture(
                        new TimeoutException("connected after the replication timeout")))
        .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .handle(
            (ok, error) -> {
              if (claimed.compareAndSet(false, true)) {
                forward.release();
              }
              if (error == null) {
                return null;
              }
              Throwable cause = Retries.unwrap(error);
              if (Retries.isRetriableStatus(cause)) {
                throw new RequestRejectedException(
                    StatusCode.NO_BUFFER,
                    "replica "
                        + next
                        + " cannot take the push now ("
                        + cause.getMessage()
                        + "); retry later");
              }
              String why =
                  cause instanceof TimeoutException
                      ? "no answer within "
                          + timeout.toMillis()
                          + " ms ("
                          + ServerOptions.REPLICATION_TIMEOUT.key()
                          + ")"
                      : cause.getMessage();
              throw new RequestRejectedException(
                  StatusCode.REPLICA_UNAVAILABLE,
                  "replica " + next + " could not take the push: " + why);
            });
  }

  /** The blocks bound for one next server, and the rest of each partition's chain. */
  private static final class Hop {
    final List<BlockDescriptor> blocks = new ArrayList<>();
    final List<ByteBuf> data = new ArrayList<>();
    final Map<Integer, ReplicaChain> rest = new LinkedHashMap<>();

    void add(ReplicaChain chain, BlockDescriptor block, ByteBuf copy) {
      blocks.add(block);
      data.add(copy);
      // An empty rest tells the next server that it holds the chain's last copy.
      List<ServerAddress> after = chain.replicas().subList(1, chain.replicas().size());
      rest.putIfAbsent(chain.partitionId(), new ReplicaChain(chain.partitionId(), after));
    }
  }
}
