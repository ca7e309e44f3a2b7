package io.sluice.common.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.sluice.common.config.ConfigException;
import io.sluice.common.config.ConfigOption;
import io.sluice.common.config.SluiceConf;
import java.io.File;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * Builds Netty TLS contexts from the transport's PEM file settings: servers present their
 * certificate (and with mutual TLS require one of clients); clients trust only the configured
 * certificates, check the server's host name, and present theirs when configured.
 */
final class TlsContexts {
  private TlsContexts() {}

  static SslContext forServer(SluiceConf conf) {
    File chain = required(conf, TransportOptions.TLS_CERT_CHAIN);
    File key = required(conf, TransportOptions.TLS_PRIVATE_KEY);
    try {
      SslContextBuilder builder = SslContextBuilder.forServer(chain, key).sslProvider(provider());
      if (conf.get(TransportOptions.TLS_CLIENT_AUTH)) {
        builder
            .clientAuth(ClientAuth.REQUIRE)
            .trustManager(required(conf, TransportOptions.TLS_TRUST_CERTS));
      }
      return builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new ConfigException(
          "cannot build a TLS server context from '"
              + chain
              + "' and '"
              + key
              + "': "
              + e.getMessage());
    }
  }

  static SslContext forClient(SluiceConf conf) {
    try {
      SslContextBuilder builder =
          SslContextBuilder.forClient()
              .sslProvider(provider())
              .trustManager(required(conf, TransportOptions.TLS_TRUST_CERTS));
      if (conf.isSet(TransportOptions.TLS_CERT_CHAIN)) {
        builder.keyManager(
            required(conf, TransportOptions.TLS_CERT_CHAIN),
            required(conf, TransportOptions.TLS_PRIVATE_KEY));
      }
      return builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new ConfigException(
          "cannot build a TLS client context: "
              + e.getMessage()
              + " (check '"
              + TransportOptions.TLS_TRUST_CERTS.key()
              + "' and '"
              + TransportOptions.TLS_CERT_CHAIN.key()
              + "')");
    }
  }

  /** BoringSSL where its native library loads (Linux x86-64), the JDK's engine elsewhere. */
  static SslProvider provider() {
    return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
  }

  /*
   * Both handlers wrap Netty's default 16 KiB of plaintext per call (one TLS record), and must not
   * be given more: a larger wrap's output buffer is above the size the pooled allocator's thread
   * caches keep (32 KiB), so every wrap takes it from the arena, which then frees and maps whole
   * chunks again and again. At 64 KiB per wrap the push benchmark's TLS with authentication ran at
   * 200-650 MiB/s against 1,400-2,450 at 16 KiB, with five times the page faults, whenever a plain
   * run had used the pool first.
   */

  /** The server's TLS handler for a new connection. */
  static SslHandler serverHandler(SslContext context, ByteBufAllocator alloc) {
    return context.newHandler(alloc);
  }

  /** A client's TLS handler for {@code host}, checking the certificate names it when configured. */
  static SslHandler clientHandler(
      SslContext context, SluiceConf conf, ByteBufAllocator alloc, String host, int port) {
    SslHandler handler = context.newHandler(alloc, host, port);
    if (conf.get(TransportOptions.TLS_VERIFY_HOSTNAME)) {
      SSLEngine engine = handler.engine();
      SSLParameters parameters = engine.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      engine.setSSLParameters(parameters);
    }
    return handler;
  }

  private static File required(SluiceConf conf, ConfigOption<String> option) {
    String path =
        conf.getOptional(option)
            .orElseThrow(
                () ->
                    new ConfigException(
                        "'"
                            + TransportOptions.TLS_ENABLED.key()
                            + "' is true but '"
                            + option.key()
                            + "' is not set"));
    File f = new File(path);
    if (!f.canRead()) {
      throw new ConfigException(
          "'" + option.key() + "' names '" + path + "', which cannot be read");
    }
    return f;
  }
}
