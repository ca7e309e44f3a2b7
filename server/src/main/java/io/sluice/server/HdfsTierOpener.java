package io.sluice.server;

import io.sluice.common.config.SluiceConf;
import io.sluice.server.storage.HdfsLogin;
import io.sluice.server.storage.HdfsTier;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the HDFS tier a server's configuration asks for, with its Kerberos login if any. */
final class HdfsTierOpener {
  private static final Logger LOG = LoggerFactory.getLogger(HdfsTierOpener.class);

  private HdfsTierOpener() {}

  /**
   * The tier in {@code hdfs.dir}, or null without it.
   *
   * @param host this server's advertised host (its directory on the tier; Kerberos's _HOST)
   * @param keep applications whose files a restart keeps
   * @throws IOException naming {@code hdfs.dir}, and the Kerberos settings when HDFS wants them
   */
  static HdfsTier open(SluiceConf conf, String host, List<Path> dirs, Set<String> keep)
      throws IOException {
    String dir = conf.getOptional(ServerOptions.HDFS_DIR).orElse(null);
    if (dir == null) {
      return null;
    }
    try {
      HdfsLogin.Keytab keytab =
          conf.getOptional(ServerOptions.HDFS_KERBEROS_PRINCIPAL)
              .map(
                  principal ->
                      new HdfsLogin.Keytab(
                          principal,
                          conf.get(ServerOptions.HDFS_KERBEROS_KEYTAB),
                          conf.get(ServerOptions.HDFS_KERBEROS_RELOGIN_CHECK)))
              .orElse(null);
      HdfsTier tier =
          HdfsTier.open(
              dir,
              host,
              dirs,
              conf.get(ServerOptions.HDFS_FLUSH_THREADS),
              conf.get(ServerOptions.HDFS_READ_THREADS),
              keep,
              keytab,
              ServerOptions.HDFS_KERBEROS_KEYTAB.key());
      LOG.info("HDFS tier in {}", tier.root());
      return tier;
    } catch (IOException | IllegalArgumentException e) {
      String hint =
          !conf.isSet(ServerOptions.HDFS_KERBEROS_PRINCIPAL) && wantsKerberos(e)
              ? "; this HDFS requires Kerberos: set '"
                  + ServerOptions.HDFS_KERBEROS_PRINCIPAL.key()
                  + "' and '"
                  + ServerOptions.HDFS_KERBEROS_KEYTAB.key()
                  + "'"
              : "";
      throw new IOException(
          "cannot use " + ServerOptions.HDFS_DIR.key() + " = " + dir + ": " + e.getMessage() + hint,
          e);
    }
  }

  /** Whether Hadoop refused a connection for want of Kerberos (its message, anywhere inside). */
  private static boolean wantsKerberos(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage());
      if (message.contains("SIMPLE authentication is not enabled")) {
        return true;
      }
    }
    return false;
  }
}
