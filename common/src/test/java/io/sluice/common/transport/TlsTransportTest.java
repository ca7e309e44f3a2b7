package io.sluice.common.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.config.ConfigException;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.StatusResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With TLS on, requests work and file segments travel through the TLS engine in chunks; clients
 * accept only a certificate that names the host they connect to, and with mutual TLS servers accept
 * only clients with a trusted certificate.
 */
class TlsTransportTest {
  @TempDir Path dir;

  private static TransportServer server(SelfSignedCertificate cert, Map<String, String> more) {
    Map<String, String> settings =
        new HashMap<>(
            Map.of(
                TransportOptions.TLS_ENABLED.key(), "true",
                TransportOptions.TLS_CERT_CHAIN.key(), cert.certificate().getPath(),
                TransportOptions.TLS_PRIVATE_KEY.key(), cert.privateKey().getPath()));
    settings.putAll(more);
    return TransportTestSupport.context(TransportTestSupport.conf(settings), "tls-server")
        .createServer("127.0.0.1", 0, new TestHandler(null));
  }

  private static TransportClientFactory client(Map<String, String> settings) {
    Map<String, String> all = new HashMap<>(settings);
    all.put(TransportOptions.TLS_ENABLED.key(), "true");
    return TransportTestSupport.context(TransportTestSupport.conf(all), "tls-client")
        .createClientFactory();
  }

  private static StatusCode heartbeat(TransportClient client) throws Exception {
    return client
        .request(
            new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"), StatusResponse.class)
        .get(10, TimeUnit.SECONDS)
        .status();
  }

  @Test
  void tlsRunsOnBoringSslWhereItsLibraryIsShipped() {
    boolean shipped =
        "Linux".equals(System.getProperty("os.name"))
            && "amd64".equals(System.getProperty("os.arch"));
    if (shipped) {
      assertTrue(OpenSsl.isAvailable(), String.valueOf(OpenSsl.unavailabilityCause()));
      assertEquals(SslProvider.OPENSSL, TlsContexts.provider());
    }
  }

  /**
   * A frozen server's kernel still accepts connections, but nothing answers the TLS handshake. A
   * probe given more than TLS's own handshake timeout (Netty's 10 s) must wait for its own deadline
   * and find no answer: closed by that timeout, it would count as answered, and a frozen server
   * would never be given up where {@code transport.liveness.timeout} is over 20 s.
   */
  @Test
  void aProbeOfAServerThatNeverAnswersTheTlsHandshakeFindsNoAnswer() throws Exception {
    SelfSignedCertificate cert = new SelfSignedCertificate("localhost");
    try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 8);
        TransportClientFactory probing =
            client(Map.of(TransportOptions.TLS_TRUST_CERTS.key(), cert.certificate().getPath()))) {
      long timeoutMillis = 10_500;
      long start = System.nanoTime();
      boolean answered =
          probing
              .probe("localhost", silent.getLocalPort(), timeoutMillis)
              .get(timeoutMillis + 10_000, TimeUnit.MILLISECONDS);
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertEquals(false, answered, "answered after " + tookMillis + " ms");
      assertTrue(tookMillis >= timeoutMillis - 50, "gave up after " + tookMillis + " ms");
    } finally {
      cert.delete();
    }
  }

  @Test
  void aCertificateForAnotherHostIsRefused() throws Exception {
    SelfSignedCertificate other = new SelfSignedCertificate("other.example");
    try (TransportServer server = server(other, Map.of());
        TransportClientFactory checking =
            client(Map.of(TransportOptions.TLS_TRUST_CERTS.key(), other.certificate().getPath()));
        TransportClientFactory unchecked =
            client(
                Map.of(
                    TransportOptions.TLS_TRUST_CERTS.key(),
                    other.certificate().getPath(),
                    TransportOptions.TLS_VERIFY_HOSTNAME.key(),
                    "false"))) {
      IOException refused =
          assertThrows(IOException.class, () -> checking.getClient("localhost", server.port()));
      assertTrue(
          String.valueOf(refused.getCause()).contains("SSL")
              || refused.getMessage().contains("handshake"),
          refused.toString());
      assertEquals(
          StatusCode.OK,
          heartbeat(unchecked.getClient("localhost", server.port())),
          "the same certificate, trusted, with the check turned off");
    } finally {
      other.delete();
    }
  }

  @Test
  void anUntrustedCertificateIsRefusedAndTrustMustBeConfigured() throws Exception {
    SelfSignedCertificate cert = new SelfSignedCertificate("localhost");
    SelfSignedCertificate stranger = new SelfSignedCertificate("localhost");
    try (TransportServer server = server(cert, Map.of());
        TransportClientFactory trustsAnother =
            client(
                Map.of(TransportOptions.TLS_TRUST_CERTS.key(), stranger.certificate().getPath()))) {
      assertThrows(IOException.class, () -> trustsAnother.getClient("localhost", server.port()));
      ConfigException noTrust = assertThrows(ConfigException.class, () -> client(Map.of()));
      assertTrue(
          noTrust.getMessage().contains(TransportOptions.TLS_TRUST_CERTS.key()),
          noTrust.getMessage());
    } finally {
      cert.delete();
      stranger.delete();
    }
  }

  @Test
  void mutualTlsRefusesAClientWithoutATrustedCertificate() throws Exception {
    SelfSignedCertificate serverCert = new SelfSignedCertificate("localhost");
    SelfSignedCertificate clientCert = new SelfSignedCertificate("executor-1");
    SelfSignedCertificate strangerCert = new SelfSignedCertificate("executor-2");
    Map<String, String> trustServer =
        Map.of(TransportOptions.TLS_TRUST_CERTS.key(), serverCert.certificate().getPath());
    try (TransportServer server =
            server(
                serverCert,
                Map.of(
                    TransportOptions.TLS_CLIENT_AUTH.key(),
                    "true",
                    TransportOptions.TLS_TRUST_CERTS.key(),
                    clientCert.certificate().getPath()));
        TransportClientFactory anonymous = client(trustServer);
        TransportClientFactory stranger = client(withCertificate(trustServer, strangerCert));
        TransportClientFactory known = client(withCertificate(trustServer, clientCert))) {
      assertThrows(
          IOException.class, () -> heartbeat(anonymous.getClient("localhost", server.port())));
      assertThrows(
          IOException.class, () -> heartbeat(stranger.getClient("localhost", server.port())));
      assertEquals(StatusCode.OK, heartbeat(known.getClient("localhost", server.port())));
    } finally {
      serverCert.delete();
      clientCert.delete();
      strangerCert.delete();
    }
  }

  private static Map<String, String> withCertificate(
      Map<String, String> settings, SelfSignedCertificate cert) {
    Map<String, String> all = new HashMap<>(settings);
    all.put(TransportOptions.TLS_CERT_CHAIN.key(), cert.certificate().getPath());
    all.put(TransportOptions.TLS_PRIVATE_KEY.key(), cert.privateKey().getPath());
    return all;
  }

  @Test
  void fileSegmentsArriveIntactOverTls() throws Exception {
    SelfSignedCertificate cert = new SelfSignedCertificate("localhost");
    byte[] data = new byte[1 << 20];
    new Random(5).nextBytes(data);
    Path file = Files.write(dir.resolve("data"), data);
    TransportConf serverConf =
        TransportTestSupport.conf(
            Map.of(
                TransportOptions.TLS_ENABLED.key(), "true",
                TransportOptions.TLS_CERT_CHAIN.key(), cert.certificate().getPath(),
                TransportOptions.TLS_PRIVATE_KEY.key(), cert.privateKey().getPath()));
    TransportConf clientConf =
        TransportTestSupport.conf(
            Map.of(
                TransportOptions.TLS_ENABLED.key(),
                "true",
                TransportOptions.TLS_TRUST_CERTS.key(),
                cert.certificate().getPath()));
    try (TransportServer server =
            TransportTestSupport.context(serverConf, "tls-server")
                .createServer("127.0.0.1", 0, new TestHandler(file));
        TransportClientFactory factory =
            TransportTestSupport.context(clientConf, "tls-client").createClientFactory()) {
      TransportClient client = factory.getClient("localhost", server.port());
      StatusResponse ok =
          client
              .request(
                  new AppHeartbeatRequest(TransportClient.nextRequestId(), "app"),
                  StatusResponse.class)
              .get(10, TimeUnit.SECONDS);
      assertEquals(StatusCode.OK, ok.status());
      FetchDataResponse response =
          client
              .request(
                  new FetchDataRequest(TransportClient.nextRequestId(), "app", 0, 0, 1000, 500_000),
                  FetchDataResponse.class)
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
