package io.sluice.common.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.StatusResponse;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With TLS on, requests work and file segments travel through the TLS engine in chunks. */
class TlsTransportTest {
  @TempDir Path dir;

  @Test
  void fileSegmentsArriveIntactOverTls() throws Exception {
    SelfSignedCertificate cert = new SelfSignedCertificate("localhost");
    byte[] data = new byte[1 << 20];
    new Random(5).nextBytes(data);
    Path file = Files.write(dir.resolve("data"), data);
    TransportConf serverConf = TransportTestSupport.conf(Map.of(
        TransportOptions.TLS_ENABLED.key(), "true",
        TransportOptions.TLS_CERT_CHAIN.key(), cert.certificate().getPath(),
        TransportOptions.TLS_PRIVATE_KEY.key(), cert.privateKey().getPath()));
    TransportConf clientConf = TransportTestSupport.conf(Map.of(
        TransportOptions.TLS_ENABLED.key(), "true",
        TransportOptions.TLS_TRUST_CERTS.key(), cert.certificate().getPath()));
    try (TransportServer server = TransportTestSupport.context(serverConf, "tls-server")
            .createServer("127.0.0.1", 0, new TestHandler(file));
        TransportClientFactory factory =
            TransportTestSupport.context(clientConf, "tls-client").createClientFactory()) {
      TransportClient client = factory.getClient("localhost", server.port());
      StatusResponse ok = client.request(new AppHeartbeatRequest(TransportClient.nextRequestId(),
          "app"), StatusResponse.class).get(10, TimeUnit.SECONDS);
      assertEquals(StatusCode.OK, ok.status());
      FetchDataResponse response = client.request(new FetchDataRequest(
          TransportClient.nextRequestId(), "app", 0, 0, 1000, 500_000), FetchDataResponse.class)
          .get(10, TimeUnit.SECONDS);
      try (InputStream in = response.body().createInputStream()) {
        assertArrayEquals(Arrays.copyOfRange(data, 1000, 501_000), in.readAllBytes());
      } finally {
        ReferenceCountUtil.release(response);
      }
    } finally {
      cert.delete();
    }
  }
}
