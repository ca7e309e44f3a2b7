package io.sluice.common.protocol;

/** The wire protocol version both peers exchange in the handshake. Bump on any incompatible change. */
public final class ProtocolVersion {
  public static final int CURRENT = 1;

  private ProtocolVersion() {}
}
