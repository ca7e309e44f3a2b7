package io.sluice.common.auth;

import io.sluice.common.protocol.AuthRole;
import java.util.Objects;

/**
 * What a client proves when it connects, or {@link #none()}: the role it claims, the application it
 * acts for and the secrets behind them. Connections are pooled per address and credentials, so a
 * process that acts for several applications (a server replicating) never shares a connection
 * between them.
 */
public final class Credentials {
  private static final Credentials NONE = new Credentials(null, "", null, null);

  private final AuthRole role;
  private final String appId;
  private final Secret appSecret;
  private final Secret clusterSecret;

  private Credentials(AuthRole role, String appId, Secret appSecret, Secret clusterSecret) {
    this.role = role;
    this.appId = appId;
    this.appSecret = appSecret;
    this.clusterSecret = clusterSecret;
  }

  /** No authentication: for servers that do not require it. */
  public static Credentials none() {
    return NONE;
  }

  /** A cluster member: heart-beats and assignments at coordinators. */
  public static Credentials cluster(Secret clusterSecret) {
    return new Credentials(
        AuthRole.CLUSTER, "", null, Objects.requireNonNull(clusterSecret, "clusterSecret"));
  }

  /** An executor of {@code appId}, or a server forwarding its blocks. */
  public static Credentials application(String appId, Secret appSecret) {
    return new Credentials(
        AuthRole.APPLICATION,
        Objects.requireNonNull(appId, "appId"),
        Objects.requireNonNull(appSecret, "appSecret"),
        null);
  }

  /** The driver of {@code appId}, which tells servers the application's secret. */
  public static Credentials registrar(String appId, Secret appSecret, Secret clusterSecret) {
    return new Credentials(
        AuthRole.REGISTRAR,
        Objects.requireNonNull(appId, "appId"),
        Objects.requireNonNull(appSecret, "appSecret"),
        Objects.requireNonNull(clusterSecret, "clusterSecret"));
  }

  public boolean isNone() {
    return role == null;
  }

  /** The claimed role; null for {@link #none()}. */
  public AuthRole role() {
    return role;
  }

  public String appId() {
    return appId;
  }

  /** The secret the proof is made with: the cluster's, or for the application role the app's. */
  public Secret proofKey() {
    return role == AuthRole.APPLICATION ? appSecret : clusterSecret;
  }

  /** The application's secret (application and registrar roles). */
  public Secret appSecret() {
    return appSecret;
  }

  /** Which pool of connections these credentials use at one address. */
  public String poolKey() {
    return role == null ? "" : role.name() + "/" + appId;
  }

  @Override
  public String toString() {
    return role == null ? "no credentials" : role + (appId.isEmpty() ? "" : " of " + appId);
  }
}
