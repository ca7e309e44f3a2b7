package io.sluice.common.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.protocol.ResponseMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Last stage of a client pipeline: routes responses to their requests, fails them on errors. */
final class ClientChannelHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ClientChannelHandler.class);

  private final TransportClient client;

  ClientChannelHandler(TransportClient client) {
    this.client = client;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ResponseMessage) {
      client.handleResponse((ResponseMessage) msg);
    } else {
      ReferenceCountUtil.release(msg);
      LOG.warn(
          "Closing connection to {}: a server sent a non-response message {}",
          ctx.channel().remoteAddress(),
          msg.getClass().getSimpleName());
      ctx.close();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    client.failAll(
        new ConnectionClosedException(
            "connection to " + ctx.channel().remoteAddress() + " closed"));
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    String what = NetworkErrors.describe(cause);
    LOG.warn("Closing connection to {}: {}", ctx.channel().remoteAddress(), what);
    client.failAll(
        new ConnectionClosedException(
            "connection to " + ctx.channel().remoteAddress() + " broke: " + what, cause));
    ctx.close();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof IdleStateEvent) {
      if (client.outstandingRequests() == 0) {
        LOG.debug("Closing idle connection to {}", ctx.channel().remoteAddress());
        ctx.close();
      }
    } else {
      super.userEventTriggered(ctx, evt);
    }
  }
}
