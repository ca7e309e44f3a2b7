package io.sluice.common.auth;

import io.sluice.common.protocol.AuthRole;

/**
 * Who an authenticated connection proved to be: its role, and for application-scoped roles the
 * application and its secret (the one the server already held, or the one a registrar brought).
 */
public record Identity(AuthRole role, String appId, Secret appSecret) {

  /** Whether the connection may ask about {@code app}'s data. */
  public boolean mayActFor(String app) {
    return !role.isApplicationScoped() || appId.equals(app);
  }

  @Override
  public String toString() {
    return role + (appId.isEmpty() ? "" : " of " + appId);
  }
}
