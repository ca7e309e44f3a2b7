package io.sluice.common.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.codec.DecoderException;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.shuffle.Retries;
import io.sluice.fixtures.Await;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What a broken connection is called in the errors callers see: words, not Netty's classes. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class NetworkErrorsTest {
  @TempDir Path dir;

  @Test
  void aResetConnectionFailsItsRequestsSayingSoWithoutNettyInternals() throws Exception {
    TestHandler handler = new TestHandler(Files.write(dir.resolve("data"), new byte[16]));
    TransportConf conf =
        TransportTestSupport.conf(Map.of(TransportOptions.REQUEST_TIMEOUT.key(), "10m"));
    TransportServer server =
        TransportTestSupport.context(conf, "server-1").createServer("127.0.0.1", 0, handler);
    TransportClientFactory factory =
        TransportTestSupport.context(conf, "client-1").createClientFactory();
    try (FreezableRelay relay = new FreezableRelay("127.0.0.1", server.port())) {
      TransportClient client = factory.getClient("127.0.0.1", relay.port());
      relay.freeze();
      long handshake = relay.bytesFromClients();
      CompletableFuture<StatusResponse> pending =
          client.request(
              new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"),
              StatusResponse.class);
      // Reset only once the request is on its way, so that it fails waiting for its answer.
      Await.until(() -> relay.bytesFromClients() > handshake, "the request reaching the relay");
      relay.reset();

      ExecutionException failed =
          assertThrows(ExecutionException.class, () -> pending.get(60, TimeUnit.SECONDS));
      Throwable cause = Retries.unwrap(failed);
      assertInstanceOf(ConnectionClosedException.class, cause, cause.toString());
      String message = cause.getMessage();
      assertTrue(message.startsWith("connection to "), message);
      assertFalse(message.contains("io.netty"), message);
      assertFalse(message.contains("(..)"), message);
      assertFalse(NetworkErrors.describe(cause).contains("io.netty"), message);
    } finally {
      factory.close();
      server.close();
    }
  }

  @Test
  void describesWithoutClassNamesOrSystemCalls() {
    assertEquals(
        "connection reset by peer",
        NetworkErrors.describe(
            new IOException("recvAddress(..) failed: Connection reset by peer")));
    assertEquals(
        "connection reset by peer",
        NetworkErrors.describe(
            new IOException("recvAddress(..) failed with error(-104): Connection reset by peer")));
    assertEquals(
        "broken pipe",
        NetworkErrors.describe(new IOException("writevAddresses(..) failed: Broken pipe")));
    assertEquals("the connection is closed", NetworkErrors.describe(new ClosedChannelException()));
    assertEquals(
        "connection refused",
        NetworkErrors.describe(new DecoderException(new IOException("connection refused"))));
    assertEquals(
        "TLS failed: no trusted certificate",
        NetworkErrors.describe(new SSLHandshakeException("no trusted certificate")));
    // A message of ours keeps its case: it may start with a status.
    assertEquals(
        "NO_BUFFER: the server is full",
        NetworkErrors.describe(new IOException("NO_BUFFER: the server is full")));
  }

  @Test
  void aBugKeepsItsClassName() {
    assertEquals(
        "java.lang.IllegalStateException: oops",
        NetworkErrors.describe(new IllegalStateException("oops")));
  }
}
