package io.sluice.common.protocol.message;

import io.sluice.common.protocol.CorruptFrameException;

/** A shuffle server's state as it reports it in heartbeats; one byte on the wire. */
public enum ServerState {
  /** Serving and accepting new work. */
  ACTIVE(0),
  /** Serving what it holds but taking no new partitions; will stop when its data is read. */
  DECOMMISSIONING(1),
  /** Something is wrong (disks, memory); the coordinator assigns it no new work. */
  UNHEALTHY(2);

  private static final ServerState[] BY_CODE = new ServerState[3];

  static {
    for (ServerState state : values()) {
      if (BY_CODE[state.code] != null) {
        throw new IllegalStateException("duplicate server state code " + state.code);
      }
      BY_CODE[state.code] = state;
    }
  }

  private final byte code;

  ServerState(int code) {
    this.code = (byte) code;
  }

  public byte code() {
    return code;
  }

  /** Decodes a state byte; throws {@link CorruptFrameException} for a byte that names no state. */
  public static ServerState fromCode(byte code) {
    ServerState state = code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    if (state == null) {
      throw new CorruptFrameException("unknown server state " + code);
    }
    return state;
  }
}
