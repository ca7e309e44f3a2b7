package io.sluice.common.transport;

import io.netty.util.ReferenceCountUtil;
import io.sluice.common.buffer.FileSegmentManagedBuffer;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.StatusResponse;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A request handler for transport tests: heartbeats are acknowledged, except for app id "silent",
 * which is never answered; fetches are served from one file with sendfile; anything else is
 * released and answered OK.
 */
final class TestHandler implements RequestHandler {
  static final String SILENT_APP = "silent";

  private final Path dataFile;
  final AtomicInteger handled = new AtomicInteger();

  TestHandler(Path dataFile) {
    this.dataFile = dataFile;
  }

  @Override
  public void handle(TransportChannel channel, RequestMessage request) {
    handled.incrementAndGet();
    if (request instanceof AppHeartbeatRequest
        && SILENT_APP.equals(((AppHeartbeatRequest) request).appId())) {
      return;
    }
    if (request instanceof FetchDataRequest) {
      FetchDataRequest fetch = (FetchDataRequest) request;
      channel.respond(
          FetchDataResponse.ok(
              fetch.requestId(),
              new FileSegmentManagedBuffer(dataFile, fetch.offset(), fetch.length())));
      return;
    }
    ReferenceCountUtil.release(request);
    channel.respond(StatusResponse.ok(request.requestId()));
  }
}
