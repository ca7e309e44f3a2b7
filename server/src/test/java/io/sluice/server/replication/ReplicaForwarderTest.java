package io.sluice.server.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.common.auth.Credentials;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.ReplicaChain;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.FreezableRelay;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportServer;
import io.sluice.fixtures.Await;
import io.sluice.server.shuffle.RequestRejectedException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ReplicaForwarderTest {
  private static final int BLOCK = 1000;

  /**
   * The replication timeout can strike before the connection to the next server is made (a {@code
   * replication.timeout} below {@code transport.connect.timeout}, a replica slow to answer its
   * handshake). The forward is then never sent, and its slices of the pool's copies must be
   * released all the same, also once the connection is made after all.
   */
  @Test
  void aForwardWhoseConnectionOutlastsTheReplicationTimeoutIsReleased() throws Exception {
    TransportContext context =
        new TransportContext(
            new TransportConf(SluiceConf.empty()), "forward-test", PooledByteBufAllocator.DEFAULT);
    ByteBuf copy = PooledByteBufAllocator.DEFAULT.directBuffer(BLOCK).writeZero(BLOCK);
    try (TransportServer next =
            context.createServer(
                "127.0.0.1",
                0,
                (channel, request) -> {
                  io.netty.util.ReferenceCountUtil.release(request);
                  channel.respond(StatusResponse.ok(request.requestId()));
                });
        FreezableRelay relay = new FreezableRelay("127.0.0.1", next.port());
        TransportClientFactory peers = context.createClientFactory()) {
      relay.freeze();
      ReplicaForwarder forwarder =
          new ReplicaForwarder(
              peers,
              app -> Credentials.none(),
              PooledByteBufAllocator.DEFAULT,
              Duration.ofMillis(200));
      ServerAddress replica = new ServerAddress("replica", "127.0.0.1", relay.port());
      byte[] bytes = new byte[BLOCK];
      CompletableFuture<Void> forwarded =
          forwarder.forward(
              "app",
              0,
              List.of(new ReplicaChain(0, List.of(replica))),
              List.of(new BlockDescriptor(0, 1L, 0, BLOCK, BLOCK, Crc32c.of(bytes))),
              new ByteBuf[] {copy});

      ExecutionException failed =
          assertThrows(ExecutionException.class, () -> forwarded.get(10, TimeUnit.SECONDS));
      RequestRejectedException rejected = (RequestRejectedException) failed.getCause();
      assertEquals(StatusCode.REPLICA_UNAVAILABLE, rejected.status(), rejected.getMessage());
      assertTrue(rejected.getMessage().contains("replication.timeout"), rejected.getMessage());

      relay.thaw();
      peers.getClient("127.0.0.1", relay.port());
      Await.until(() -> copy.refCnt() == 1, "the forward's slice of the copy to be released");
    } finally {
      copy.release();
    }
  }
}
