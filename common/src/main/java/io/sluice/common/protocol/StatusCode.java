package io.sluice.common.protocol;

/**
 * Outcome of a request, one byte on the wire. Retriable codes mean the same request can succeed
 * later (the client backs off and retries); the others mean it cannot, and retrying only wastes
 * time.
 *
 * <p>A code added by a protocol version is never sent to a peer that speaks an older one: it gets
 * {@link #forVersion}'s stand-in, a code it knows with the same retry rule.
 */
public enum StatusCode {
  OK(0, false),
  /** A bug or an unexpected failure on the server; see its log. */
  INTERNAL_ERROR(1, false),
  /** A well-formed request with invalid fields (partition out of range, negative offset, ...). */
  INVALID_REQUEST(2, false),
  /** The server's push memory is full right now; retry after a back-off. */
  NO_BUFFER(3, true),
  /**
   * The server is stopping or draining and takes no new data; a writer asks for another location, a
   * reader reads a replica.
   */
  SHUTTING_DOWN(4, false),
  UNKNOWN_APPLICATION(5, false),
  UNKNOWN_SHUFFLE(6, false),
  /** The peers speak different protocol versions; the message names both. */
  VERSION_MISMATCH(7, false),
  /** The frame was larger than the receiver's maximum frame size. */
  FRAME_TOO_LARGE(8, false),
  /** The frame's type byte names no known message. */
  UNKNOWN_MESSAGE_TYPE(9, false),
  /** The frame could not be decoded (negative length, truncated or garbled header). */
  MALFORMED_FRAME(10, false),
  /** No healthy disk could take the data; nothing of this request was stored. */
  STORAGE_UNAVAILABLE(11, false),
  /** The coordinator knows too few healthy servers to satisfy an assignment. */
  NOT_ENOUGH_SERVERS(12, false),
  /** The server is temporarily overloaded (not memory); retry after a back-off. */
  BUSY(13, true),
  /** Data the request refers to is gone (expired, deleted, or lost with a disk). */
  DATA_NOT_FOUND(14, false),
  /** A message other than a handshake arrived before the handshake completed. */
  HANDSHAKE_REQUIRED(15, false),
  /** The request was refused by an administrative limit (excluded server, per-user app limit). */
  REFUSED(16, false),
  /**
   * The server that received a push could not forward it to the next server of a replica chain;
   * nothing of the push was kept. The client asks for a new location for those partitions.
   */
  REPLICA_UNAVAILABLE(17, false),
  /**
   * A pushed block's bytes do not match the CRC32C its descriptor carries; nothing of the push was
   * kept. Protocol 3; a peer speaking 2 gets {@link #INVALID_REQUEST}.
   */
  CORRUPT_BLOCK(18, false, 3, 2),
  /**
   * Authentication is required and missing, or failed (unknown role, wrong secret, a server that
   * does not authenticate); the connection is closed. Protocol 4; older peers get {@link #REFUSED}.
   */
  UNAUTHENTICATED(19, false, 4, 16),
  /**
   * An authenticated connection asked for something its role may not do: another application's
   * data, or a request its role is not served. The connection stays open for its own application.
   * Protocol 4; older peers get {@link #REFUSED}.
   */
  ACCESS_DENIED(20, false, 4, 16);

  private static final StatusCode[] BY_CODE = new StatusCode[32];

  static {
    for (StatusCode s : values()) {
      if (BY_CODE[s.code] != null) {
        throw new ExceptionInInitializerError("duplicate status code " + s.code);
      }
      BY_CODE[s.code] = s;
    }
  }

  private final byte code;
  private final boolean retriable;

  /** The protocol version that introduced the code. */
  private final int since;

  /** What a peer speaking a version before {@link #since} gets instead. */
  private final byte standIn;

  StatusCode(int code, boolean retriable) {
    this(code, retriable, ProtocolVersion.MIN_SUPPORTED, code);
  }

  StatusCode(int code, boolean retriable, int since, int standIn) {
    this.code = (byte) code;
    this.retriable = retriable;
    this.since = since;
    this.standIn = (byte) standIn;
  }

  public byte code() {
    return code;
  }

  public boolean isRetriable() {
    return retriable;
  }

  /** This code, or its stand-in when a peer speaking {@code version} does not know it. */
  public StatusCode forVersion(int version) {
    return version >= since ? this : fromCode(standIn);
  }

  /**
   * Decodes a status byte; throws {@link CorruptFrameException} for a byte that names no status.
   */
  public static StatusCode fromCode(byte code) {
    StatusCode s = code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    if (s == null) {
      throw new CorruptFrameException("unknown status code " + code);
    }
    return s;
  }
}
