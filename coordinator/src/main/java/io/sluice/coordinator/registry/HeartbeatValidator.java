package io.sluice.coordinator.registry;

import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.DiskStatus;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.coordinator.RequestRefusedException;

/**
 * Checks a heartbeat's fields before anything of it reaches the registry, so that a buggy or
 * hostile peer cannot plant a server clients would fail to reach, or numbers that would skew every
 * assignment. The wire decoder has already checked the framing; this checks the meaning.
 */
public final class HeartbeatValidator {
  /** Longest server id or host name accepted (a DNS name has at most 253 characters). */
  static final int MAX_NAME_LENGTH = 255;

  private HeartbeatValidator() {}

  /**
   * @throws RequestRefusedException with INVALID_REQUEST naming the first bad field
   */
  public static void check(ServerStatus status) {
    name("serverId", status.serverId());
    name("host", status.host());
    if (status.dataPort() < 1 || status.dataPort() > 65535) {
      throw invalid(status, "dataPort " + status.dataPort() + " is not in 1..65535");
    }
    if (status.httpPort() < -1 || status.httpPort() > 65535) {
      throw invalid(status, "httpPort " + status.httpPort() + " is not in -1..65535");
    }
    if (status.version().length() > MAX_NAME_LENGTH) {
      throw invalid(status, "version is longer than " + MAX_NAME_LENGTH + " characters");
    }
    if (status.pushBufferCapacity() <= 0) {
      throw invalid(
          status, "pushBufferCapacity " + status.pushBufferCapacity() + " is not positive");
    }
    nonNegative(status, "pushBufferUsed", status.pushBufferUsed());
    nonNegative(status, "readBufferCapacity", status.readBufferCapacity());
    nonNegative(status, "readBufferUsed", status.readBufferUsed());
    nonNegative(status, "partitionsHeld", status.partitionsHeld());
    for (DiskStatus disk : status.disks()) {
      if (disk.totalBytes() < 0 || disk.usedBytes() < 0) {
        throw invalid(
            status,
            "disk "
                + disk.path()
                + " reports negative space (total "
                + disk.totalBytes()
                + ", used "
                + disk.usedBytes()
                + ")");
      }
    }
    for (String tag : status.tags()) {
      if (tag.isEmpty() || !printable(tag)) {
        throw invalid(
            status, "tag '" + tag + "' is empty or has white space or control characters");
      }
    }
  }

  /**
   * @throws RequestRefusedException with INVALID_REQUEST for a bad node name
   */
  public static void checkNode(ServerStatus status, String node) {
    name("node", node);
  }

  private static void name(String field, String value) {
    if (value.isEmpty()) {
      throw new RequestRefusedException(
          StatusCode.INVALID_REQUEST, "invalid heartbeat: " + field + " is empty");
    }
    if (value.length() > MAX_NAME_LENGTH || !printable(value)) {
      throw new RequestRefusedException(
          StatusCode.INVALID_REQUEST,
          "invalid heartbeat: "
              + field
              + " must be at most "
              + MAX_NAME_LENGTH
              + " characters without white space or control "
              + "characters");
    }
  }

  private static void nonNegative(ServerStatus status, String field, long value) {
    if (value < 0) {
      throw invalid(status, field + " " + value + " is negative");
    }
  }

  private static boolean printable(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isWhitespace(c) || Character.isISOControl(c)) {
        return false;
      }
    }
    return true;
  }

  private static RequestRefusedException invalid(ServerStatus status, String problem) {
    return new RequestRefusedException(
        StatusCode.INVALID_REQUEST,
        "invalid heartbeat from server " + status.serverId() + ": " + problem);
  }
}
