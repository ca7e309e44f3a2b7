package io.sluice.common.protocol;

/**
 * Who a connection claims to be in an {@code AuthRequest}, one byte on the wire. The role names the
 * secret the peer proves it holds, and so what the connection may do.
 */
public enum AuthRole {
  /**
   * A cluster member (a shuffle server heart-beating, a driver asking for assignments): proves the
   * cluster secret. Served by coordinators.
   */
  CLUSTER(1),
  /**
   * One application's executor, driver or replicating server: proves that application's secret,
   * which the server must already hold. Every request on the connection is confined to it.
   */
  APPLICATION(2),
  /**
   * An application's driver announcing the application's secret to a shuffle server: proves the
   * cluster secret and carries the application's secret wrapped under a key derived from it. The
   * connection is then confined to that application like an {@link #APPLICATION} one.
   */
  REGISTRAR(3);

  private final byte code;

  AuthRole(int code) {
    this.code = (byte) code;
  }

  public byte code() {
    return code;
  }

  /** Whether the connection is bound to one application. */
  public boolean isApplicationScoped() {
    return this != CLUSTER;
  }

  public static AuthRole fromCode(byte code) {
    for (AuthRole role : values()) {
      if (role.code == code) {
        return role;
      }
    }
    throw new CorruptFrameException("auth role byte " + code + " names no role");
  }
}
