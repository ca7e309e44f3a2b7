package io.sluice.common.protocol;

/**
 * The wire protocol's versions. A peer speaks every version from {@link #MIN_SUPPORTED} to {@link
 * #CURRENT}; at the handshake the client offers its range and the server picks the highest version
 * both speak, so that servers can be upgraded one at a time under running applications as long as
 * adjacent releases share a version. Bump {@link #CURRENT} on any incompatible change and keep
 * {@link #MIN_SUPPORTED} at the previous version for one release.
 *
 * <p>Version 2 is the first release with a version range; version 1 was a pre-release protocol that
 * no supported peer speaks. Version 3 adds the {@link StatusCode#CORRUPT_BLOCK} status; a server
 * answers a client speaking 2 with the stand-in that version knows. Version 4 adds authentication
 * (the {@code Auth*} messages and the UNAUTHENTICATED and ACCESS_DENIED statuses). Version 5 adds
 * the server's frame limit to the handshake's answer and index reads in pages ({@code
 * FetchIndexPage*}), so that an index of any number of blocks can be read. Version 6 adds {@code
 * AssignmentRunsResponse}, an assignment whose size does not grow with the partitions, which the
 * coordinator answers instead of {@code AssignmentResponse}. Version 7 adds {@code
 * ServerHeartbeatOnNodeRequest}, a server's heartbeat that names the node it runs on.
 */
public final class ProtocolVersion {
  public static final int CURRENT = 7;
  public static final int MIN_SUPPORTED = 2;

  private ProtocolVersion() {}

  /**
   * The version two peers speak: the highest in both ranges, or -1 when the ranges do not overlap.
   */
  public static int negotiate(int peerMin, int peerMax) {
    return negotiate(peerMin, peerMax, CURRENT);
  }

  /** As {@link #negotiate(int, int)} for a peer that speaks no later than {@code newest}. */
  public static int negotiate(int peerMin, int peerMax, int newest) {
    int version = Math.min(peerMax, newest);
    return version >= Math.max(peerMin, MIN_SUPPORTED) ? version : -1;
  }

  /** The range as docs and messages show it, e.g. {@code 2..3}. */
  public static String describeRange(int min, int max) {
    return min == max ? String.valueOf(min) : min + ".." + max;
  }
}
