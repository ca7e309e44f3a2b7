package io.sluice.common.transport;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.auth.AuthOptions;
import io.sluice.common.auth.Identity;
import io.sluice.common.auth.ServerAuth;
import io.sluice.common.protocol.ApplicationRequest;
import io.sluice.common.protocol.LogText;
import io.sluice.common.protocol.ProtocolException;
import io.sluice.common.protocol.ProtocolVersion;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AuthProofRequest;
import io.sluice.common.protocol.message.AuthRequest;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.protocol.message.HandshakeResponse;
import io.sluice.common.protocol.message.StatusResponse;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Last stage of a server pipeline: enforces the handshake, hands requests to the {@link
 * RequestHandler}, and turns a bad frame into an error answer and a closed connection, so that one
 * misbehaving peer never affects another.
 */
final class ServerChannelHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ServerChannelHandler.class);

  /** One line per interval for all connections: a peer repeating a mistake cannot flood the log. */
  private static final LogRateLimiter PROTOCOL_ERRORS = new LogRateLimiter(10_000);

  /** Requests refused to an authenticated connection: one line per interval for all of them. */
  private static final LogRateLimiter DENIALS = new LogRateLimiter(10_000);

  private final TransportChannel channel;
  private final RequestHandler handler;
  private final String serverId;
  private final ServerAuth auth;
  private final int maxFrameSize;
  private final int newestVersion;
  private final ConnectionAuth authentication;
  private boolean handshakeDone;
  private boolean failed;

  /**
   * @param maxFrameSize the largest frame this listener accepts, told to clients at the handshake
   * @param newestVersion the newest protocol version this listener speaks
   */
  ServerChannelHandler(
      TransportChannel channel,
      RequestHandler handler,
      String serverId,
      ServerAuth auth,
      int maxFrameSize,
      int newestVersion) {
    this.channel = channel;
    this.handler = handler;
    this.serverId = serverId;
    this.auth = auth;
    this.maxFrameSize = maxFrameSize;
    this.newestVersion = newestVersion;
    this.authentication = new ConnectionAuth(auth);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (failed) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (!(msg instanceof RequestMessage)) {
      ReferenceCountUtil.release(msg);
      // A response's frame was read whole: its request id is the peer's own, so echo it.
      rejectAndClose(
          msg instanceof ResponseMessage r ? r.requestId() : -1,
          StatusCode.INVALID_REQUEST,
          "a server accepts only requests, got " + msg.getClass().getSimpleName());
      return;
    }
    RequestMessage request = (RequestMessage) msg;
    if (!handshakeDone) {
      handshake(request);
      return;
    }
    if (request instanceof HandshakeRequest) {
      channel.respond(
          StatusResponse.error(
              request.requestId(),
              StatusCode.INVALID_REQUEST,
              "handshake already done on this connection"));
      return;
    }
    if (request instanceof AuthRequest || request instanceof AuthProofRequest) {
      authenticate(request);
      return;
    }
    Identity who = channel.identity();
    if (auth.required() && who == null) {
      ReferenceCountUtil.release(request);
      rejectAndClose(
          request.requestId(),
          StatusCode.UNAUTHENTICATED,
          "this server requires "
              + "authentication ('"
              + AuthOptions.ENABLED.key()
              + "'): authenticate after the "
              + "handshake, before "
              + request.type());
      return;
    }
    if (who != null
        && request instanceof ApplicationRequest scoped
        && !who.mayActFor(scoped.appId())) {
      ReferenceCountUtil.release(request);
      deny(request, who, scoped.appId());
      return;
    }
    try {
      handler.handle(channel, request);
    } catch (RuntimeException e) {
      LOG.error("Request {} from {} failed", request, channel.remoteAddress(), e);
      channel.respond(
          StatusResponse.error(request.requestId(), StatusCode.INTERNAL_ERROR, e.toString()));
    }
  }

  private void handshake(RequestMessage request) {
    if (!(request instanceof HandshakeRequest)) {
      ReferenceCountUtil.release(request);
      rejectAndClose(
          request.requestId(),
          StatusCode.HANDSHAKE_REQUIRED,
          "the first message on a connection must be a HandshakeRequest, got " + request.type());
      return;
    }
    HandshakeRequest hello = (HandshakeRequest) request;
    int version = ProtocolVersion.negotiate(hello.minVersion(), hello.maxVersion(), newestVersion);
    if (version < 0) {
      rejectAndClose(
          hello.requestId(),
          StatusCode.VERSION_MISMATCH,
          "client "
              + hello.clientId()
              + " speaks protocol versions "
              + ProtocolVersion.describeRange(hello.minVersion(), hello.maxVersion())
              + ", this server speaks "
              + ProtocolVersion.describeRange(ProtocolVersion.MIN_SUPPORTED, newestVersion)
              + "; upgrade the older side to a release that shares a version with the other");
      return;
    }
    handshakeDone = true;
    channel.clientId(hello.clientId());
    channel.protocolVersion(version);
    channel.respond(HandshakeResponse.ok(hello.requestId(), version, serverId, maxFrameSize));
    handler.channelActive(channel);
  }

  private void authenticate(RequestMessage request) {
    if (channel.identity() != null) {
      channel.respond(
          StatusResponse.error(
              request.requestId(),
              StatusCode.INVALID_REQUEST,
              "this connection is already authenticated as " + channel.identity()));
      return;
    }
    try {
      if (request instanceof AuthRequest start) {
        channel.respond(authentication.challenge(start));
      } else {
        Identity who = authentication.verify((AuthProofRequest) request);
        channel.identity(who);
        channel.respond(authentication.answer(request.requestId()));
      }
    } catch (ConnectionAuth.Failure e) {
      rejectAndClose(request.requestId(), e.status(), e.getMessage());
    }
  }

  /** A request outside the connection's application: refused, the connection stays usable. */
  private void deny(RequestMessage request, Identity who, String appId) {
    handler.protocolError(StatusCode.ACCESS_DENIED);
    if (DENIALS.tryAcquire()) {
      LOG.warn(
          "Refused {} for application {} to {} ({}): it acts for {} only (further "
              + "refusals are counted in the metrics and not logged for 10 s)",
          request.type(),
          LogText.escape(appId),
          channel.remoteAddress(),
          LogText.escape(channel.clientId()),
          who);
    }
    channel.respond(
        StatusResponse.error(
            request.requestId(),
            StatusCode.ACCESS_DENIED,
            "this connection authenticated as "
                + who
                + " and may not act for application "
                + appId));
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (handshakeDone) {
      handler.channelInactive(channel);
    }
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof ProtocolException) {
      ProtocolException pe = (ProtocolException) cause;
      rejectAndClose(pe.hasRequestId() ? pe.requestId() : -1, pe.status(), pe.getMessage());
    } else if (cause instanceof IOException) {
      LOG.debug(
          "Connection from {} failed: {}", channel.remoteAddress(), NetworkErrors.describe(cause));
      ctx.close();
    } else {
      LOG.warn(
          "Closing connection from {} after an unexpected error", channel.remoteAddress(), cause);
      ctx.close();
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof IdleStateEvent) {
      LOG.debug("Closing idle connection from {}", channel.remoteAddress());
      ctx.close();
    } else {
      super.userEventTriggered(ctx, evt);
    }
  }

  /** Answers with an error where possible, logs one line, and closes only this connection. */
  private void rejectAndClose(long requestId, StatusCode status, String reason) {
    if (failed) {
      return;
    }
    failed = true;
    handler.protocolError(status);
    if (PROTOCOL_ERRORS.tryAcquire()) {
      LOG.warn(
          "Closing connection from {}: {} {} (further protocol errors are counted in the "
              + "metrics and not logged for 10 s)",
          channel.remoteAddress(),
          status,
          LogText.escape(reason));
    }
    // As the peer's version knows the status (a stand-in for a status newer than it).
    channel
        .channel()
        .writeAndFlush(channel.forPeer(StatusResponse.error(requestId, status, reason)))
        .addListener(ChannelFutureListener.CLOSE);
  }
}
