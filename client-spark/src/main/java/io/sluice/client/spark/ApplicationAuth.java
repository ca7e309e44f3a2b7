package io.sluice.client.spark;

import io.sluice.common.auth.AuthProofs;
import io.sluice.common.auth.Credentials;
import io.sluice.common.auth.Secret;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import org.apache.spark.SparkEnv;

/**
 * How an application's executors authenticate with Sluice's servers and the driver's endpoint; it
 * travels in every shuffle handle. The application's secret is derived from Spark's own secret when
 * {@code spark.authenticate} is on (each side derives it; nothing secret is shipped), and is a
 * random one otherwise, shipped in the handle as Spark ships every task's data.
 */
public final class ApplicationAuth implements Serializable {
  private static final long serialVersionUID = 1L;
  static final ApplicationAuth NONE = new ApplicationAuth(false, null);

  private final boolean enabled;

  /** The random secret; null when executors derive it from Spark's. */
  private final byte[] shippedSecret;

  private transient volatile Secret secret;

  private ApplicationAuth(boolean enabled, byte[] shippedSecret) {
    this.enabled = enabled;
    this.shippedSecret = shippedSecret;
  }

  /** The driver's choice for its application. */
  public static ApplicationAuth forDriver(boolean enabled) {
    if (!enabled) {
      return NONE;
    }
    String spark = sparkSecret();
    if (spark != null && spark.getBytes(StandardCharsets.UTF_8).length < Secret.MIN_BYTES) {
      throw new IllegalArgumentException(
          "spark.authenticate.secret has fewer than "
              + Secret.MIN_BYTES
              + " bytes; Sluice derives its application secret from it");
    }
    return spark != null
        ? new ApplicationAuth(true, null)
        : new ApplicationAuth(true, Secret.random().copyOfBytes());
  }

  public boolean enabled() {
    return enabled;
  }

  /** The application's secret; null when authentication is off. */
  public Secret secret(String appId) {
    if (!enabled) {
      return null;
    }
    Secret known = secret;
    if (known == null) {
      if (shippedSecret != null) {
        known = Secret.of(shippedSecret);
      } else {
        String spark = sparkSecret();
        if (spark == null) {
          throw new IllegalStateException(
              "the driver derives Sluice's application secret from "
                  + "Spark's (spark.authenticate), but this JVM has no Spark secret");
        }
        known =
            AuthProofs.derive(
                Secret.of(spark.getBytes(StandardCharsets.UTF_8)), "application " + appId);
      }
      secret = known;
    }
    return known;
  }

  /** How this JVM's connections for the application authenticate. */
  Credentials credentials(String appId) {
    return enabled ? Credentials.application(appId, secret(appId)) : Credentials.none();
  }

  /** Spark's own secret when {@code spark.authenticate} is on in this JVM; null otherwise. */
  private static String sparkSecret() {
    SparkEnv env = SparkEnv.get();
    if (env == null || !env.securityManager().isAuthenticationEnabled()) {
      return null;
    }
    return env.securityManager().getSecretKey();
  }
}
