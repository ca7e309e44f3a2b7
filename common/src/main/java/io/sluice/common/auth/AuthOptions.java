package io.sluice.common.auth;

import io.sluice.common.config.ConfigException;
import io.sluice.common.config.ConfigOption;
import io.sluice.common.config.ConfigOptionSet;
import io.sluice.common.config.SluiceConf;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/** Authentication settings of the daemons (docs/security.md). */
public final class AuthOptions implements ConfigOptionSet {

  public static final ConfigOption<Boolean> ENABLED =
      ConfigOption.bool("auth.enabled")
          .defaultValue("false")
          .doc(
              "Require every connection to authenticate: servers and drivers at coordinators with "
                  + "the cluster secret, executors at shuffle servers with their application's secret. "
                  + "Every Sluice daemon of a cluster and every Spark application using it must agree.")
          .build();

  public static final ConfigOption<String> CLUSTER_SECRET_FILE =
      ConfigOption.string("auth.cluster.secret.file")
          .noDefault()
          .doc(
              "File holding the cluster secret (at least 32 characters, not readable by every "
                  + "user), shared by coordinators, servers and Spark drivers. Required when "
                  + "'auth.enabled' is true.")
          .build();

  public static final ConfigOption<Boolean> INSECURE_OFF_LOOPBACK =
      ConfigOption.bool("auth.insecure.unauthenticated.off.loopback")
          .defaultValue("false")
          .doc(
              "Let a daemon with 'auth.enabled' false listen on an address other than loopback. "
                  + "Anyone who reaches its ports can then push, read and delete any application's "
                  + "shuffle data, register applications and heart-beat as a server: set it only "
                  + "where the network itself admits nobody else. Without it such a daemon refuses "
                  + "to start.")
          .build();

  private static final List<ConfigOption<?>> ALL =
      List.of(ENABLED, CLUSTER_SECRET_FILE, INSECURE_OFF_LOOPBACK);

  /**
   * Refuses a daemon that would listen off loopback with authentication off, unless the
   * configuration accepts that risk by name ({@link #INSECURE_OFF_LOOPBACK}).
   *
   * @param bindHostOption the daemon's bind address setting, for the message
   * @throws ConfigException naming the settings that change the outcome
   */
  public static void refuseUnauthenticatedOffLoopback(
      SluiceConf conf, ConfigOption<String> bindHostOption) {
    String host = conf.get(bindHostOption);
    if (conf.get(ENABLED) || conf.get(INSECURE_OFF_LOOPBACK) || isLoopback(host)) {
      return;
    }
    throw new ConfigException(
        "'"
            + bindHostOption.key()
            + "' is "
            + host
            + ", not a loopback "
            + "address, and authentication is off: anyone who reaches this daemon could read and "
            + "delete every application's shuffle data. Set '"
            + ENABLED.key()
            + "' true (with '"
            + CLUSTER_SECRET_FILE.key()
            + "', docs/security.md), or bind a loopback address, or set '"
            + INSECURE_OFF_LOOPBACK.key()
            + "' true to accept the risk.");
  }

  /**
   * Whether {@code host} names only loopback addresses: {@code 0.0.0.0} (every address), a name
   * that resolves to any other address too, and a name that does not resolve do not.
   */
  public static boolean isLoopback(String host) {
    try {
      for (InetAddress address : InetAddress.getAllByName(host)) {
        if (!address.isLoopbackAddress()) {
          return false;
        }
      }
      return true;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** The cluster secret when authentication is on; null when it is off. */
  public static Secret clusterSecret(SluiceConf conf) {
    return conf.get(ENABLED)
        ? SecretFile.read(conf.get(CLUSTER_SECRET_FILE), CLUSTER_SECRET_FILE.key())
        : null;
  }

  @Override
  public String title() {
    return "Authentication (server and coordinator)";
  }

  @Override
  public String description() {
    return "Who may connect to the daemons. See docs/security.md for the threat model and for "
        + "the settings of the Spark client.";
  }

  @Override
  public List<ConfigOption<?>> options() {
    return ALL;
  }

  @Override
  public void validate(SluiceConf conf) {
    if (conf.get(ENABLED) && !conf.isSet(CLUSTER_SECRET_FILE)) {
      throw new ConfigException(
          "'"
              + ENABLED.key()
              + "' is true but '"
              + CLUSTER_SECRET_FILE.key()
              + "' is not set: name the file holding the cluster secret");
    }
  }
}
