package io.sluice.common.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.StatusResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A server's {@link BodyPlacer} is offered large frames on plain connections, and never under TLS,
 * whose socket reads are ciphertext that only the TLS engine can turn into the frame's bytes.
 */
class BodyPlacementTransportTest {
  private static final int BODY = 512 * 1024;

  /** Answers every request; counts the frames offered to its placer, which declines them all. */
  private static final class OfferCounter implements RequestHandler {
    final AtomicInteger offers = new AtomicInteger();
    private final TestHandler answers = new TestHandler(null);

    @Override
    public void handle(TransportChannel channel, RequestMessage request) {
      answers.handle(channel, request);
    }

    @Override
    public BodyPlacer bodyPlacer(TransportChannel channel) {
      return (frameStart, frameLength) -> {
        offers.incrementAndGet();
        return null;
      };
    }
  }

  private static StatusCode push(TransportClient client) throws Exception {
    ByteBuf body = Unpooled.directBuffer(BODY).writeZero(BODY);
    PushDataRequest push =
        new PushDataRequest(
            TransportClient.nextRequestId(),
            "app",
            0,
            List.of(),
            List.of(new BlockDescriptor(0, 1L, 0, BODY, BODY, 0)),
            new NettyManagedBuffer(body));
    return client.request(push, StatusResponse.class).get(30, TimeUnit.SECONDS).status();
  }

  @Test
  void aLargeFrameIsOfferedOnAPlainConnection() throws Exception {
    OfferCounter handler = new OfferCounter();
    try (TransportServer server =
            TransportTestSupport.context(TransportTestSupport.conf(Map.of()), "plain-server")
                .createServer("127.0.0.1", 0, handler);
        TransportClientFactory clients =
            TransportTestSupport.context(TransportTestSupport.conf(Map.of()), "plain-client")
                .createClientFactory()) {
      assertEquals(StatusCode.OK, push(clients.getClient("127.0.0.1", server.port())));
      assertTrue(handler.offers.get() >= 1, "offered " + handler.offers.get() + " times");
    }
  }

  @Test
  void noFrameIsOfferedUnderTls() throws Exception {
    SelfSignedCertificate cert = new SelfSignedCertificate("localhost");
    OfferCounter handler = new OfferCounter();
    try (TransportServer server =
            TransportTestSupport.context(
                    TransportTestSupport.conf(
                        Map.of(
                            TransportOptions.TLS_ENABLED.key(), "true",
                            TransportOptions.TLS_CERT_CHAIN.key(), cert.certificate().getPath(),
                            TransportOptions.TLS_PRIVATE_KEY.key(), cert.privateKey().getPath())),
                    "tls-server")
                .createServer("127.0.0.1", 0, handler);
        TransportClientFactory clients =
            TransportTestSupport.context(
                    TransportTestSupport.conf(
                        Map.of(
                            TransportOptions.TLS_ENABLED.key(),
                            "true",
                            TransportOptions.TLS_TRUST_CERTS.key(),
                            cert.certificate().getPath())),
                    "tls-client")
                .createClientFactory()) {
      assertEquals(StatusCode.OK, push(clients.getClient("localhost", server.port())));
      assertEquals(0, handler.offers.get());
    } finally {
      cert.delete();
    }
  }
}
