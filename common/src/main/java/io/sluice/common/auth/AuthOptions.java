package io.sluice.common.auth;

import io.sluice.common.config.ConfigException;
import io.sluice.common.config.ConfigOption;
import io.sluice.common.config.ConfigOptionSet;
import io.sluice.common.config.SluiceConf;
import java.util.List;

/** Authentication settings of the daemons (docs/security.md). */
public final class AuthOptions implements ConfigOptionSet {

  public static final ConfigOption<Boolean> ENABLED =
      ConfigOption.bool("auth.enabled")
          .defaultValue("false")
          .doc("Require every connection to authenticate: servers and drivers at coordinators with "
              + "the cluster secret, executors at shuffle servers with their application's secret. "
              + "Every Sluice daemon of a cluster and every Spark application using it must agree.")
          .build();

  public static final ConfigOption<String> CLUSTER_SECRET_FILE =
      ConfigOption.string("auth.cluster.secret.file")
          .noDefault()
          .doc("File holding the cluster secret (at least 32 characters, not readable by every "
              + "user), shared by coordinators, servers and Spark drivers. Required when "
              + "'auth.enabled' is true.")
          .build();

  private static final List<ConfigOption<?>> ALL = List.of(ENABLED, CLUSTER_SECRET_FILE);

  /** The cluster secret when authentication is on; null when it is off. */
  public static Secret clusterSecret(SluiceConf conf) {
    return conf.get(ENABLED) ? SecretFile.read(conf.get(CLUSTER_SECRET_FILE),
        CLUSTER_SECRET_FILE.key()) : null;
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
      throw new ConfigException("'" + ENABLED.key() + "' is true but '"
          + CLUSTER_SECRET_FILE.key() + "' is not set: name the file holding the cluster secret");
    }
  }
}
