package io.sluice.benchmark.transport;

import io.netty.util.ReferenceCountUtil;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.RequestHandler;
import io.sluice.common.transport.TransportChannel;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server side of the benchmark: drops every pushed body, counts its bytes and blocks, and
 * answers OK. Anything but a push is refused, so a wrong client shows up as failed requests, not as
 * speed.
 */
final class SinkHandler implements RequestHandler {
  private final LongAdder bodyBytes = new LongAdder();
  private final LongAdder blocks = new LongAdder();

  @Override
  public void handle(TransportChannel channel, RequestMessage request) {
    if (request instanceof PushDataRequest push) {
      long size = push.body().size();
      int count = push.blocks().size();
      // The handler owns the decoded request; its reference count is its body's.
      push.release();
      bodyBytes.add(size);
      blocks.add(count);
      channel.respond(StatusResponse.ok(push.requestId()));
    } else {
      ReferenceCountUtil.release(request);
      channel.respond(
          StatusResponse.error(
              request.requestId(),
              StatusCode.INVALID_REQUEST,
              "the benchmark sink takes only PushDataRequest, got " + request.type()));
    }
  }

  /** Body bytes and blocks received so far. */
  Counts counts() {
    return new Counts(bodyBytes.sum(), blocks.sum());
  }

  record Counts(long bodyBytes, long blocks) {
    Counts minus(Counts earlier) {
      return new Counts(bodyBytes - earlier.bodyBytes, blocks - earlier.blocks);
    }
  }
}
