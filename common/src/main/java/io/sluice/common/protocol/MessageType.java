package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.AssignmentResponse;
import io.sluice.common.protocol.message.AssignmentRunsResponse;
import io.sluice.common.protocol.message.AuthChallengeResponse;
import io.sluice.common.protocol.message.AuthProofRequest;
import io.sluice.common.protocol.message.AuthProofResponse;
import io.sluice.common.protocol.message.AuthRequest;
import io.sluice.common.protocol.message.CommitMapOutputRequest;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.FetchIndexPageRequest;
import io.sluice.common.protocol.message.FetchIndexPageResponse;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchIndexResponse;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.FetchMemoryDataResponse;
import io.sluice.common.protocol.message.GetAssignmentRequest;
import io.sluice.common.protocol.message.GetLocationsRequest;
import io.sluice.common.protocol.message.GetShuffleResultRequest;
import io.sluice.common.protocol.message.GetShuffleResultResponse;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.protocol.message.HandshakeResponse;
import io.sluice.common.protocol.message.LocationsResponse;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.RegisterApplicationRequest;
import io.sluice.common.protocol.message.RegisterShuffleRequest;
import io.sluice.common.protocol.message.RelocateRequest;
import io.sluice.common.protocol.message.ServerHeartbeatOnNodeRequest;
import io.sluice.common.protocol.message.ServerHeartbeatRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.protocol.message.UnregisterApplicationRequest;
import io.sluice.common.protocol.message.UnregisterShuffleRequest;
import java.util.function.Function;

/**
 * The registry of wire messages: each message's type byte, class, direction and decoder. A type
 * byte is never reused for another message; retired bytes stay retired.
 */
public enum MessageType {
  HANDSHAKE_REQUEST(1, HandshakeRequest.class, true, HandshakeRequest::decode),
  HANDSHAKE_RESPONSE(2, HandshakeResponse.class, false, HandshakeResponse::decode),
  STATUS_RESPONSE(3, StatusResponse.class, false, StatusResponse::decode),
  AUTH_REQUEST(4, AuthRequest.class, true, AuthRequest::decode),
  AUTH_CHALLENGE_RESPONSE(5, AuthChallengeResponse.class, false, AuthChallengeResponse::decode),
  AUTH_PROOF_REQUEST(6, AuthProofRequest.class, true, AuthProofRequest::decode),
  AUTH_PROOF_RESPONSE(7, AuthProofResponse.class, false, AuthProofResponse::decode),

  REGISTER_APPLICATION_REQUEST(
      10, RegisterApplicationRequest.class, true, RegisterApplicationRequest::decode),
  APP_HEARTBEAT_REQUEST(11, AppHeartbeatRequest.class, true, AppHeartbeatRequest::decode),
  UNREGISTER_APPLICATION_REQUEST(
      12, UnregisterApplicationRequest.class, true, UnregisterApplicationRequest::decode),
  REGISTER_SHUFFLE_REQUEST(13, RegisterShuffleRequest.class, true, RegisterShuffleRequest::decode),
  UNREGISTER_SHUFFLE_REQUEST(
      14, UnregisterShuffleRequest.class, true, UnregisterShuffleRequest::decode),

  // 20 and 21 were RequireBufferRequest and RequireBufferResponse (protocol 1): retired.
  PUSH_DATA_REQUEST(22, PushDataRequest.class, true, PushDataRequest::decode),
  COMMIT_MAP_OUTPUT_REQUEST(23, CommitMapOutputRequest.class, true, CommitMapOutputRequest::decode),
  GET_SHUFFLE_RESULT_REQUEST(
      24, GetShuffleResultRequest.class, true, GetShuffleResultRequest::decode),
  GET_SHUFFLE_RESULT_RESPONSE(
      25, GetShuffleResultResponse.class, false, GetShuffleResultResponse::decode),
  FETCH_INDEX_REQUEST(26, FetchIndexRequest.class, true, FetchIndexRequest::decode),
  FETCH_INDEX_RESPONSE(27, FetchIndexResponse.class, false, FetchIndexResponse::decode),
  FETCH_DATA_REQUEST(28, FetchDataRequest.class, true, FetchDataRequest::decode),
  FETCH_DATA_RESPONSE(29, FetchDataResponse.class, false, FetchDataResponse::decode),
  FETCH_MEMORY_DATA_REQUEST(30, FetchMemoryDataRequest.class, true, FetchMemoryDataRequest::decode),
  FETCH_MEMORY_DATA_RESPONSE(
      31, FetchMemoryDataResponse.class, false, FetchMemoryDataResponse::decode),
  FETCH_INDEX_PAGE_REQUEST(32, FetchIndexPageRequest.class, true, FetchIndexPageRequest::decode),
  FETCH_INDEX_PAGE_RESPONSE(
      33, FetchIndexPageResponse.class, false, FetchIndexPageResponse::decode),

  SERVER_HEARTBEAT_REQUEST(40, ServerHeartbeatRequest.class, true, ServerHeartbeatRequest::decode),
  GET_ASSIGNMENT_REQUEST(41, GetAssignmentRequest.class, true, GetAssignmentRequest::decode),
  ASSIGNMENT_RESPONSE(42, AssignmentResponse.class, false, AssignmentResponse::decode),
  ASSIGNMENT_RUNS_RESPONSE(43, AssignmentRunsResponse.class, false, AssignmentRunsResponse::decode),
  SERVER_HEARTBEAT_ON_NODE_REQUEST(
      44, ServerHeartbeatOnNodeRequest.class, true, ServerHeartbeatOnNodeRequest::decode),

  RELOCATE_REQUEST(50, RelocateRequest.class, true, RelocateRequest::decode),
  GET_LOCATIONS_REQUEST(51, GetLocationsRequest.class, true, GetLocationsRequest::decode),
  LOCATIONS_RESPONSE(52, LocationsResponse.class, false, LocationsResponse::decode);

  private static final MessageType[] BY_BYTE = new MessageType[256];

  static {
    for (MessageType type : values()) {
      int index = type.id & 0xFF;
      if (BY_BYTE[index] != null) {
        throw new IllegalStateException(
            "type byte " + type.id + " used by both " + BY_BYTE[index] + " and " + type);
      }
      BY_BYTE[index] = type;
    }
  }

  private final byte id;
  private final Class<? extends Message> messageClass;
  private final boolean request;
  private final Function<ByteBuf, ? extends Message> decoder;

  MessageType(
      int id,
      Class<? extends Message> messageClass,
      boolean request,
      Function<ByteBuf, ? extends Message> decoder) {
    this.id = (byte) id;
    this.messageClass = messageClass;
    this.request = request;
    this.decoder = decoder;
  }

  /** The type byte on the wire. */
  public byte id() {
    return id;
  }

  public Class<? extends Message> messageClass() {
    return messageClass;
  }

  /** True for requests (which carry a request id and expect a response), false for responses. */
  public boolean isRequest() {
    return request;
  }

  /**
   * Decodes a message of this type from a frame positioned after the type byte. A message with a
   * body takes a retained slice of {@code frame} as its body; the caller still releases {@code
   * frame}.
   *
   * @throws CorruptFrameException or {@link IndexOutOfBoundsException} when the header is malformed
   */
  public Message decode(ByteBuf frame) {
    return decoder.apply(frame);
  }

  /** The type a byte names, or {@code null} when it names none. */
  public static MessageType fromByte(byte id) {
    return BY_BYTE[id & 0xFF];
  }
}
