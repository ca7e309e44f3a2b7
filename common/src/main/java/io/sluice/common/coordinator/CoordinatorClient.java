package io.sluice.common.coordinator;

import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.AssignmentAnswer;
import io.sluice.common.protocol.message.GetAssignmentRequest;
import io.sluice.common.protocol.message.RegisterApplicationRequest;
import io.sluice.common.protocol.message.ServerHeartbeatOnNodeRequest;
import io.sluice.common.protocol.message.ServerHeartbeatRequest;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.protocol.message.UnregisterApplicationRequest;
import io.sluice.common.transport.Connections;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.RequestTimeoutException;
import io.sluice.common.transport.TransportClient;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Talks to a list of coordinators, for shuffle servers (heartbeats) and Spark drivers (applications
 * and assignments). Coordinators share no state; each rebuilds its view from what it is sent. So:
 *
 * <ul>
 *   <li>{@link #sendHeartbeat} goes to every coordinator, asynchronously; a coordinator that is
 *       down or slow delays nobody, and failures never surface as exceptions.
 *   <li>The other requests go to the coordinators in list order: a connection failure, a timeout, a
 *       retriable status or SHUTTING_DOWN moves on to the next; any other refusal is the answer and
 *       is thrown at once. A coordinator that does not know the application (it restarted, or the
 *       client failed over to it) gets the registration again, then the request.
 * </ul>
 *
 * <p>Thread-safe. The blocking methods must not be called on a Netty event loop. The client does
 * not own its {@link Connections}; closing it stops only its own heartbeat threads.
 */
public final class CoordinatorClient implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorClient.class);

  private final Connections connections;
  private final List<CoordinatorAddress> coordinators;
  private final long timeoutMillis;
  private final Map<CoordinatorAddress, HeartbeatLane> lanes = new LinkedHashMap<>();
  private final ConcurrentHashMap<String, String> userOfApp = new ConcurrentHashMap<>();
  // Opens connections for heartbeats, which may block up to the connect timeout; at most one task
  // per coordinator is in flight, so the pool stays as small as the list.
  private final ExecutorService connector =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread thread = new Thread(runnable, "sluice-coordinator-client");
            thread.setDaemon(true);
            return thread;
          });

  /**
   * @param coordinators in the order requests try them (see {@link CoordinatorAddress#parseList})
   * @param requestTimeout how long one coordinator may take to answer before the next is tried
   */
  public CoordinatorClient(
      Connections connections, List<CoordinatorAddress> coordinators, Duration requestTimeout) {
    this.connections = Objects.requireNonNull(connections, "connections");
    if (coordinators.isEmpty()) {
      throw new IllegalArgumentException("a coordinator client needs at least one coordinator");
    }
    this.coordinators = List.copyOf(coordinators);
    this.timeoutMillis = requestTimeout.toMillis();
    if (timeoutMillis <= 0) {
      throw new IllegalArgumentException("request timeout must be positive: " + requestTimeout);
    }
    for (CoordinatorAddress coordinator : this.coordinators) {
      lanes.put(coordinator, new HeartbeatLane(coordinator));
    }
  }

  public List<CoordinatorAddress> coordinators() {
    return coordinators;
  }

  /**
   * Reports a server's status to every coordinator. Never throws and never blocks; the future
   * completes, never exceptionally, with the number of coordinators that accepted it. A coordinator
   * whose previous heartbeat is still in flight is skipped this time.
   */
  public CompletableFuture<Integer> sendHeartbeat(ServerStatus status) {
    return sendHeartbeat(status, null);
  }

  /**
   * As {@link #sendHeartbeat(ServerStatus)}, naming the node the server runs on to coordinators
   * that speak protocol version {@value ServerHeartbeatOnNodeRequest#SINCE_VERSION} or later (older
   * ones take the server's host for its node).
   *
   * @param node the node, or null to let every coordinator take the host
   */
  public CompletableFuture<Integer> sendHeartbeat(ServerStatus status, String node) {
    List<CompletableFuture<Boolean>> sent = new ArrayList<>(lanes.size());
    for (HeartbeatLane lane : lanes.values()) {
      sent.add(lane.send(status, node));
    }
    return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]))
        .thenApply(ignored -> (int) sent.stream().filter(CompletableFuture::join).count());
  }

  /**
   * Asks for the servers of a new shuffle's partitions, or of partitions that need a new location
   * (then {@code excludedServerIds} names servers found unusable).
   *
   * @throws RemoteException with NOT_ENOUGH_SERVERS, INVALID_REQUEST, REFUSED, ... as the
   *     coordinator answered
   * @throws IOException when no coordinator could be reached or answered in time
   */
  public AssignmentAnswer getAssignment(
      String appId,
      int shuffleId,
      int numPartitions,
      int replicaCount,
      List<String> tags,
      List<String> excludedServerIds)
      throws IOException, InterruptedException {
    return call(
        "assignment of shuffle " + shuffleId + " of " + appId,
        appId,
        id ->
            new GetAssignmentRequest(
                id, appId, shuffleId, numPartitions, replicaCount, tags, excludedServerIds),
        AssignmentAnswer.class);
  }

  /**
   * Registers an application; the client remembers it, to register it again with a coordinator that
   * does not know it.
   */
  public void registerApplication(String appId, String user)
      throws IOException, InterruptedException {
    userOfApp.put(appId, user);
    call(
        "registration of " + appId,
        null,
        id -> new RegisterApplicationRequest(id, appId, user),
        StatusResponse.class);
  }

  /** Keeps an application alive (registering it again where it is unknown). */
  public void appHeartbeat(String appId) throws IOException, InterruptedException {
    call(
        "heartbeat of " + appId,
        appId,
        id -> new AppHeartbeatRequest(id, appId),
        StatusResponse.class);
  }

  /** Ends an application; the client forgets it. */
  public void unregisterApplication(String appId) throws IOException, InterruptedException {
    userOfApp.remove(appId);
    call(
        "unregistration of " + appId,
        null,
        id -> new UnregisterApplicationRequest(id, appId),
        StatusResponse.class);
  }

  /** Stops the heartbeat threads; the connections stay open. */
  @Override
  public void close() {
    connector.shutdownNow();
  }

  /**
   * Tries the coordinators in order. {@code appId}, when not null, is re-registered with a
   * coordinator that answers UNKNOWN_APPLICATION, then the request is repeated there once.
   */
  private <R extends ResponseMessage> R call(
      String what, String appId, LongFunction<RequestMessage> request, Class<R> responseType)
      throws IOException, InterruptedException {
    List<String> failures = new ArrayList<>();
    IOException last = null;
    for (CoordinatorAddress coordinator : coordinators) {
      try {
        try {
          return ask(coordinator, request, responseType);
        } catch (RemoteException e) {
          String user = appId == null ? null : userOfApp.get(appId);
          if (e.status() != StatusCode.UNKNOWN_APPLICATION || user == null) {
            throw e;
          }
          LOG.info(
              "Coordinator {} does not know application {}; registering it there",
              coordinator,
              appId);
          ask(
              coordinator,
              id -> new RegisterApplicationRequest(id, appId, user),
              StatusResponse.class);
          return ask(coordinator, request, responseType);
        }
      } catch (RemoteException e) {
        // A stopping coordinator says "ask another one"; SHUTTING_DOWN is not retriable (protocol
        // 2) because retrying the same peer is pointless, but moving on is what it asks for.
        if (!e.isRetriable() && e.status() != StatusCode.SHUTTING_DOWN) {
          throw e;
        }
        last = e;
      } catch (IOException e) {
        last = e;
      }
      failures.add(coordinator + ": " + last.getMessage());
      LOG.debug("Coordinator {} failed the {}: {}", coordinator, what, last.toString());
    }
    IOException all =
        new IOException("No coordinator answered the " + what + ": " + String.join("; ", failures));
    all.initCause(last);
    throw all;
  }

  private <R extends ResponseMessage> R ask(
      CoordinatorAddress coordinator, LongFunction<RequestMessage> request, Class<R> responseType)
      throws IOException, InterruptedException {
    TransportClient client = connections.getClient(coordinator.host(), coordinator.port());
    CompletableFuture<R> answer =
        client.request(request.apply(TransportClient.nextRequestId()), responseType);
    try {
      return answer.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof IOException io ? io : new IOException(cause);
    } catch (TimeoutException e) {
      // A late answer then finds the future done, and the transport releases it.
      answer.cancel(false);
      throw new RequestTimeoutException(
          "coordinator " + coordinator + " did not answer within " + timeoutMillis + " ms");
    } catch (InterruptedException e) {
      answer.cancel(false);
      throw e;
    }
  }

  /** The heartbeat message the coordinator at the other end of {@code client} understands. */
  private static RequestMessage heartbeat(
      TransportClient client, ServerStatus status, String node) {
    long id = TransportClient.nextRequestId();
    return node != null && client.protocolVersion() >= ServerHeartbeatOnNodeRequest.SINCE_VERSION
        ? new ServerHeartbeatOnNodeRequest(id, status, node)
        : new ServerHeartbeatRequest(id, status);
  }

  /** The heartbeats to one coordinator: at most one in flight, and log lines only on changes. */
  private final class HeartbeatLane {
    private final CoordinatorAddress coordinator;
    private boolean inFlight;
    private String lastProblem;

    HeartbeatLane(CoordinatorAddress coordinator) {
      this.coordinator = coordinator;
    }

    CompletableFuture<Boolean> send(ServerStatus status, String node) {
      synchronized (this) {
        if (inFlight) {
          LOG.debug(
              "Heartbeat to coordinator {} skipped: the previous one is still in flight",
              coordinator);
          return CompletableFuture.completedFuture(false);
        }
        inFlight = true;
      }
      CompletableFuture<StatusResponse> answer;
      try {
        // Connecting is bounded by the transport's connect timeout, the answer by ours; the lane
        // stays busy until both are over, so a black-holed coordinator never piles up attempts.
        answer =
            CompletableFuture.supplyAsync(this::connect, connector)
                .thenCompose(
                    client ->
                        client
                            .request(heartbeat(client, status, node), StatusResponse.class)
                            .orTimeout(timeoutMillis, TimeUnit.MILLISECONDS));
      } catch (RejectedExecutionException e) {
        answer = CompletableFuture.failedFuture(e);
      }
      return answer.handle(
          (response, failure) -> {
            boolean accepted = failure == null;
            finished(accepted ? null : unwrap(failure));
            return accepted;
          });
    }

    private TransportClient connect() {
      try {
        return connections.getClient(coordinator.host(), coordinator.port());
      } catch (IOException e) {
        throw new CompletionException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CompletionException(e);
      }
    }

    private synchronized void finished(Throwable failure) {
      inFlight = false;
      if (failure == null) {
        if (lastProblem != null) {
          LOG.info("Coordinator {} accepts heartbeats again", coordinator);
          lastProblem = null;
        }
        return;
      }
      String problem =
          failure instanceof TimeoutException
              ? "no answer within " + timeoutMillis + " ms"
              : failure.getMessage() == null ? failure.toString() : failure.getMessage();
      if (failure instanceof RemoteException && !problem.equals(lastProblem)) {
        // A refusal means a misconfiguration (a server id in use, bad figures): say so once.
        LOG.warn("Coordinator {} refused this server's heartbeat: {}", coordinator, problem);
      } else {
        LOG.debug("Heartbeat to coordinator {} failed: {}", coordinator, problem);
      }
      lastProblem = problem;
    }

    private Throwable unwrap(Throwable failure) {
      Throwable t = failure;
      while ((t instanceof CompletionException || t instanceof ExecutionException)
          && t.getCause() != null) {
        t = t.getCause();
      }
      return t instanceof CancellationException ? new IOException("cancelled") : t;
    }
  }
}
