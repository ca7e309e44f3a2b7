package io.sluice.common.transport;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.sluice.common.config.ConfigException;
import io.sluice.common.config.SluiceConf;
import java.io.File;
import javax.net.ssl.SSLException;

/** Builds Netty TLS contexts from the transport's PEM file settings. */
final class TlsContexts {
  private TlsContexts() {}

  static SslContext forServer(SluiceConf conf) {
    String chain = conf.getOptional(TransportOptions.TLS_CERT_CHAIN).orElseThrow(() ->
        new ConfigException("'" + TransportOptions.TLS_ENABLED.key() + "' is true but '"
            + TransportOptions.TLS_CERT_CHAIN.key() + "' is not set"));
    String key = conf.getOptional(TransportOptions.TLS_PRIVATE_KEY).orElseThrow(() ->
        new ConfigException("'" + TransportOptions.TLS_ENABLED.key() + "' is true but '"
            + TransportOptions.TLS_PRIVATE_KEY.key() + "' is not set"));
    try {
      return SslContextBuilder.forServer(readable(chain, TransportOptions.TLS_CERT_CHAIN.key()),
          readable(key, TransportOptions.TLS_PRIVATE_KEY.key())).build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new ConfigException("cannot build a TLS server context from '" + chain + "' and '"
          + key + "': " + e.getMessage());
    }
  }

  static SslContext forClient(SluiceConf conf) {
    try {
      SslContextBuilder builder = SslContextBuilder.forClient();
      conf.getOptional(TransportOptions.TLS_TRUST_CERTS).ifPresent(path ->
          builder.trustManager(readable(path, TransportOptions.TLS_TRUST_CERTS.key())));
      return builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new ConfigException("cannot build a TLS client context: " + e.getMessage()
          + " (check '" + TransportOptions.TLS_TRUST_CERTS.key() + "')");
    }
  }

  private static File readable(String path, String key) {
    File f = new File(path);
    if (!f.canRead()) {
      throw new ConfigException("'" + key + "' names '" + path + "', which cannot be read");
    }
    return f;
  }
}
