package io.sluice.common.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.sluice.common.auth.Identity;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.StatusResponse;
import java.net.SocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The server's side of one connection, as a {@link RequestHandler} sees it. */
public final class TransportChannel {
  private static final Logger LOG = LoggerFactory.getLogger(TransportChannel.class);

  private final Channel channel;
  private final BatchingWriter writer;
  private volatile String clientId = "";
  private volatile int protocolVersion;
  private volatile Identity identity;

  TransportChannel(Channel channel) {
    this.channel = channel;
    this.writer = new BatchingWriter(channel);
  }

  /**
   * Sends a response; ownership of its body passes to the channel. Safe from any thread. A response
   * to a closed connection is dropped and its body released by Netty. The returned future completes
   * when the response is written (or failed). A status the peer's protocol version does not know is
   * sent as its stand-in.
   */
  public ChannelFuture respond(ResponseMessage response) {
    return writer
        .write(forPeer(response))
        .addListener(
            (ChannelFutureListener)
                f -> {
                  if (!f.isSuccess() && channel.isActive()) {
                    LOG.warn(
                        "Failed to answer request {} to {}: {}",
                        response.requestId(),
                        remoteAddress(),
                        f.cause().toString());
                    channel.close();
                  }
                });
  }

  /** {@code response} as the peer's protocol version knows it (a status newer than it stood in). */
  ResponseMessage forPeer(ResponseMessage response) {
    if (response instanceof StatusResponse answer && protocolVersion > 0) {
      StatusCode status = answer.status().forVersion(protocolVersion);
      if (status != answer.status()) {
        return StatusResponse.error(answer.requestId(), status, answer.errorMessage());
      }
    }
    return response;
  }

  public SocketAddress remoteAddress() {
    return channel.remoteAddress();
  }

  /** The client id the peer sent in its handshake. */
  public String clientId() {
    return clientId;
  }

  void clientId(String id) {
    this.clientId = id;
  }

  /** The protocol version agreed at the handshake; 0 before it. */
  public int protocolVersion() {
    return protocolVersion;
  }

  void protocolVersion(int version) {
    this.protocolVersion = version;
  }

  /** The Netty channel, for flow control (auto-read) and event-loop access. */
  /** Who the connection proved to be; null when the server does not authenticate. */
  public Identity identity() {
    return identity;
  }

  void identity(Identity identity) {
    this.identity = identity;
  }

  public Channel channel() {
    return channel;
  }

  public boolean isActive() {
    return channel.isActive();
  }

  public void close() {
    channel.close();
  }

  @Override
  public String toString() {
    return "TransportChannel[" + remoteAddress() + ", client=" + clientId + "]";
  }
}
