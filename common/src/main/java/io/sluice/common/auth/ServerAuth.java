package io.sluice.common.auth;

import io.sluice.common.protocol.AuthRole;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Function;

/**
 * What a server requires of its connections: nothing ({@link #disabled()}), or authentication in
 * one of the roles it serves, with the secrets to check the proofs against.
 *
 * @param roles the roles this server serves
 * @param clusterSecret for the cluster and registrar roles; null when neither is served
 * @param appSecrets the secret of an application this server holds, or null when it holds none of
 *     that id (the application role then answers UNKNOWN_APPLICATION)
 */
public record ServerAuth(
    Set<AuthRole> roles, Secret clusterSecret, Function<String, Secret> appSecrets) {

  private static final ServerAuth DISABLED = new ServerAuth(Set.of(), null, app -> null);

  public ServerAuth {
    roles = roles.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(roles));
    if (clusterSecret == null
        && (roles.contains(AuthRole.CLUSTER) || roles.contains(AuthRole.REGISTRAR))) {
      throw new IllegalArgumentException("the cluster and registrar roles need the cluster secret");
    }
  }

  public static ServerAuth disabled() {
    return DISABLED;
  }

  public boolean required() {
    return !roles.isEmpty();
  }
}
