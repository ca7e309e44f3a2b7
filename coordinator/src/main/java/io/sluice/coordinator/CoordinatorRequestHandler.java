package io.sluice.coordinator;

import io.netty.util.ReferenceCountUtil;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.AssignmentAnswer;
import io.sluice.common.protocol.message.AssignmentResponse;
import io.sluice.common.protocol.message.AssignmentRunsResponse;
import io.sluice.common.protocol.message.GetAssignmentRequest;
import io.sluice.common.protocol.message.RegisterApplicationRequest;
import io.sluice.common.protocol.message.ServerHeartbeatOnNodeRequest;
import io.sluice.common.protocol.message.ServerHeartbeatRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.protocol.message.UnregisterApplicationRequest;
import io.sluice.common.transport.LogRateLimiter;
import io.sluice.common.transport.RequestHandler;
import io.sluice.common.transport.TransportChannel;
import io.sluice.coordinator.app.ApplicationRegistry;
import io.sluice.coordinator.assignment.Assignment;
import io.sluice.coordinator.assignment.AssignmentLimits;
import io.sluice.coordinator.assignment.ShuffleAssigner;
import io.sluice.coordinator.metrics.CoordinatorMetrics;
import io.sluice.coordinator.metrics.CoordinatorMetrics.RequestKind;
import io.sluice.coordinator.registry.ServerRegistry;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the coordinator's requests: server heartbeats and application requests on the event loop
 * (they take microseconds), assignments on the assignment executor (a large one may take
 * milliseconds, and they are computed one at a time). A refused request is answered with its status
 * code and a message; nothing of it reaches the registries.
 */
final class CoordinatorRequestHandler implements RequestHandler {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorRequestHandler.class);

  private final ServerRegistry servers;
  private final ApplicationRegistry apps;
  private final ShuffleAssigner assigner;
  private final AssignmentLimits limits;
  private final CoordinatorMetrics metrics;
  private final ExecutorService assignmentExecutor;
  private final LogRateLimiter warnings = new LogRateLimiter(10_000);

  CoordinatorRequestHandler(
      ServerRegistry servers,
      ApplicationRegistry apps,
      ShuffleAssigner assigner,
      AssignmentLimits limits,
      CoordinatorMetrics metrics,
      ExecutorService assignmentExecutor) {
    this.servers = servers;
    this.apps = apps;
    this.assigner = assigner;
    this.limits = limits;
    this.metrics = metrics;
    this.assignmentExecutor = assignmentExecutor;
  }

  @Override
  public void handle(TransportChannel channel, RequestMessage request) {
    if (request instanceof ServerHeartbeatRequest heartbeat) {
      answer(
          channel,
          request,
          RequestKind.SERVER_HEARTBEAT,
          () -> servers.heartbeat(heartbeat.status()));
    } else if (request instanceof ServerHeartbeatOnNodeRequest heartbeat) {
      answer(
          channel,
          request,
          RequestKind.SERVER_HEARTBEAT,
          () -> servers.heartbeat(heartbeat.status(), heartbeat.node()));
    } else if (request instanceof GetAssignmentRequest assignment) {
      long startNanos = System.nanoTime();
      try {
        assignmentExecutor.execute(() -> assign(channel, assignment, startNanos));
      } catch (RejectedExecutionException e) {
        if (assignmentExecutor.isShutdown()) {
          respondAssignmentError(
              channel,
              assignment,
              StatusCode.SHUTTING_DOWN,
              "the coordinator is stopping; ask another one",
              startNanos);
        } else {
          respondAssignmentError(
              channel,
              assignment,
              StatusCode.BUSY,
              "too many assignment requests are waiting; ask another coordinator or retry",
              startNanos);
        }
      }
    } else if (request instanceof RegisterApplicationRequest register) {
      answer(
          channel,
          request,
          RequestKind.REGISTER_APP,
          () -> apps.register(register.appId(), register.user()));
    } else if (request instanceof AppHeartbeatRequest heartbeat) {
      answer(channel, request, RequestKind.APP_HEARTBEAT, () -> apps.heartbeat(heartbeat.appId()));
    } else if (request instanceof UnregisterApplicationRequest unregister) {
      answer(
          channel, request, RequestKind.UNREGISTER_APP, () -> apps.unregister(unregister.appId()));
    } else {
      long id = request.requestId();
      String type = String.valueOf(request.type());
      // A request with a body (a misdirected push) must be released here.
      ReferenceCountUtil.release(request);
      metrics.requestAnswered(RequestKind.OTHER, StatusCode.INVALID_REQUEST);
      channel.respond(
          StatusResponse.error(
              id,
              StatusCode.INVALID_REQUEST,
              "a coordinator does not serve " + type + "; send it to a shuffle server"));
    }
  }

  private void answer(
      TransportChannel channel, RequestMessage request, RequestKind kind, Runnable action) {
    try {
      action.run();
    } catch (RequestRefusedException e) {
      if (kind == RequestKind.SERVER_HEARTBEAT && warnings.tryAcquire()) {
        // A refused heartbeat is a misconfigured or broken server: worth a line, but not per beat.
        LOG.warn("Refused heartbeat from {}: {}", channel.remoteAddress(), e.getMessage());
      } else {
        LOG.debug("Refused {} from {}: {}", request, channel.remoteAddress(), e.getMessage());
      }
      metrics.requestAnswered(kind, e.status());
      channel.respond(StatusResponse.error(request.requestId(), e.status(), e.getMessage()));
      return;
    }
    metrics.requestAnswered(kind, StatusCode.OK);
    channel.respond(StatusResponse.ok(request.requestId()));
  }

  private void assign(TransportChannel channel, GetAssignmentRequest request, long startNanos) {
    AssignmentAnswer response;
    try {
      limits.check(request, channel.protocolVersion());
      apps.heartbeat(request.appId());
      Assignment assignment =
          assigner.assign(
              request.numPartitions(),
              request.replicaCount(),
              request.tags(),
              Set.copyOf(request.excludedServerIds()));
      // A peer before version 6 knows only the layout with one entry per partition.
      if (channel.protocolVersion() >= AssignmentRunsResponse.SINCE_VERSION) {
        response =
            AssignmentRunsResponse.ok(
                request.requestId(), assignment.servers(), assignment.chains());
        limits.checkAnswer(request.numPartitions(), response.encodedLength());
      } else {
        limits.checkAnswer(
            request.numPartitions(),
            AssignmentResponse.encodedLength(assignment.servers(), assignment.chains()));
        response =
            AssignmentResponse.ok(request.requestId(), assignment.servers(), assignment.chains());
      }
    } catch (RequestRefusedException e) {
      LOG.info(
          "Refused {} from {}: {} {}",
          request,
          channel.remoteAddress(),
          e.status(),
          e.getMessage());
      respondAssignmentError(channel, request, e.status(), e.getMessage(), startNanos);
      return;
    } catch (RuntimeException e) {
      LOG.error("Assignment {} from {} failed", request, channel.remoteAddress(), e);
      respondAssignmentError(channel, request, StatusCode.INTERNAL_ERROR, e.toString(), startNanos);
      return;
    }
    apps.shuffleAssigned(
        request.appId(),
        request.shuffleId(),
        request.numPartitions(),
        request.replicaCount(),
        response.servers().stream().map(ServerAddress::serverId).toList());
    metrics.assignmentServed(System.nanoTime() - startNanos, request.numPartitions());
    metrics.requestAnswered(RequestKind.ASSIGNMENT, StatusCode.OK);
    LOG.debug(
        "Assigned {} partitions of shuffle {} of {} to {} servers",
        request.numPartitions(),
        request.shuffleId(),
        request.appId(),
        response.servers().size());
    channel.respond(response);
  }

  private void respondAssignmentError(
      TransportChannel channel,
      GetAssignmentRequest request,
      StatusCode status,
      String message,
      long startNanos) {
    metrics.assignmentFailed(System.nanoTime() - startNanos);
    metrics.requestAnswered(RequestKind.ASSIGNMENT, status);
    channel.respond(StatusResponse.error(request.requestId(), status, message));
  }
}
