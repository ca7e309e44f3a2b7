package io.sluice.coordinator.assignment;

import io.sluice.common.protocol.ProtocolOptions;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AssignmentRunsResponse;
import io.sluice.common.protocol.message.GetAssignmentRequest;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.coordinator.RequestRefusedException;

/**
 * Checks an assignment request's numbers before any work is done for it: partition and replica
 * counts within the configured limits, and, for a client speaking a protocol version before 6 (one
 * entry per partition), an answer that fits one frame.
 */
public final class AssignmentLimits {
  /** Response header and the two counts, with room for the error message field's length. */
  private static final long FIXED_RESPONSE_BYTES = 8 + 1 + 2 + 4 + 4;

  private final int maxPartitions;
  private final int maxReplicas;
  private final long maxFrameSize;

  /**
   * @param maxPartitions {@code coordinator.assignment.max.partitions}
   * @param maxReplicas {@code coordinator.assignment.max.replicas}
   * @param maxFrameSize {@code transport.max.frame.size}
   */
  public AssignmentLimits(int maxPartitions, int maxReplicas, long maxFrameSize) {
    this.maxPartitions = maxPartitions;
    this.maxReplicas = maxReplicas;
    this.maxFrameSize = maxFrameSize;
  }

  /**
   * @param protocolVersion the version the requesting connection speaks
   * @throws RequestRefusedException INVALID_REQUEST naming the field and the limit
   */
  public void check(GetAssignmentRequest request, int protocolVersion) {
    if (request.appId().isEmpty()) {
      throw invalid("the application id is empty");
    }
    if (request.shuffleId() < 0) {
      throw invalid("shuffle id " + request.shuffleId() + " is negative");
    }
    int partitions = request.numPartitions();
    if (partitions < 1) {
      throw invalid("a shuffle needs at least 1 partition, the request asks for " + partitions);
    }
    if (partitions > maxPartitions) {
      throw invalid(
          partitions
              + " partitions is more than this coordinator assigns at once ("
              + maxPartitions
              + ", "
              + CoordinatorOptions.MAX_PARTITIONS.key()
              + ")");
    }
    int replicas = request.replicaCount();
    if (replicas < 1 || replicas > maxReplicas) {
      throw invalid(
          "replica count "
              + replicas
              + " is not in 1.."
              + maxReplicas
              + " (copies of each partition, primary included; "
              + CoordinatorOptions.MAX_REPLICAS.key()
              + ")");
    }
    for (String tag : request.tags()) {
      if (tag.isEmpty()) {
        throw invalid("the request names an empty tag");
      }
    }
    long answerBytes = FIXED_RESPONSE_BYTES + (long) partitions * (2 + 4L * replicas);
    if (protocolVersion < AssignmentRunsResponse.SINCE_VERSION && answerBytes > maxFrameSize) {
      throw invalid(
          "the assignment of "
              + partitions
              + " partitions x "
              + replicas
              + " copies "
              + "takes at least "
              + answerBytes
              + " bytes in the layout of protocol version "
              + protocolVersion
              + ", more than one frame may carry ("
              + maxFrameSize
              + ", "
              + ProtocolOptions.MAX_FRAME_SIZE.key()
              + "); clients speaking version "
              + AssignmentRunsResponse.SINCE_VERSION
              + " get an answer of any partition count");
    }
  }

  /**
   * Checks the encoded size of a computed answer, which also counts the server addresses.
   *
   * @throws RequestRefusedException INVALID_REQUEST when it would not fit one frame
   */
  public void checkAnswer(int partitions, long encodedLength) {
    if (encodedLength > maxFrameSize) {
      throw invalid(
          "the assignment of "
              + partitions
              + " partitions takes "
              + encodedLength
              + " bytes, more than one frame may carry ("
              + maxFrameSize
              + ", "
              + ProtocolOptions.MAX_FRAME_SIZE.key()
              + ")");
    }
  }

  private static RequestRefusedException invalid(String problem) {
    return new RequestRefusedException(
        StatusCode.INVALID_REQUEST, "invalid assignment request: " + problem);
  }
}
