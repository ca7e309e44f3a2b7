package io.sluice.client.spark;

import io.sluice.common.coordinator.CoordinatorAddress;
import io.sluice.common.coordinator.CoordinatorClient;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.AssignmentResponse;
import io.sluice.common.protocol.message.RegisterApplicationRequest;
import io.sluice.common.protocol.message.RegisterShuffleRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.protocol.message.UnregisterApplicationRequest;
import io.sluice.common.protocol.message.UnregisterShuffleRequest;
import io.sluice.common.transport.TransportClient;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's side of Sluice: registers the application and each shuffle with the coordinator and
 * the assigned servers, keeps the application alive with heartbeats, and frees shuffles and the
 * application on the servers when Spark is done with them.
 */
final class SluiceDriver implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(SluiceDriver.class);

  private final SluiceClientContext client;
  private final String appId;
  private final String user;
  private final CoordinatorClient coordinators;
  private final Set<String> registeredServers = ConcurrentHashMap.newKeySet();
  private final Map<String, String[]> serverAddresses = new ConcurrentHashMap<>();
  private final Map<Integer, ShuffleAssignment> shuffles = new ConcurrentHashMap<>();
  private final ScheduledFuture<?> heartbeats;

  SluiceDriver(SluiceClientContext client, String appId, String user)
      throws IOException, InterruptedException {
    this.client = client;
    this.appId = appId;
    this.user = user;
    List<String> list = client.conf().getOptional(SluiceClientOptions.COORDINATORS)
        .filter(l -> !l.isEmpty())
        .orElseThrow(() -> new IllegalArgumentException("Sluice needs '"
            + SluiceClientOptions.COORDINATORS.key() + "' (host:port of the coordinators)"));
    this.coordinators = new CoordinatorClient(client.clients(),
        CoordinatorAddress.parseList(list, SluiceClientOptions.COORDINATORS.key()),
        client.conf().get(io.sluice.common.transport.TransportOptions.REQUEST_TIMEOUT));
    coordinators.registerApplication(appId, user);
    long interval = client.conf().get(SluiceClientOptions.HEARTBEAT_INTERVAL).toMillis();
    this.heartbeats = client.scheduler().scheduleWithFixedDelay(this::heartbeat, interval,
        interval, TimeUnit.MILLISECONDS);
  }

  /** Asks the coordinator for servers and registers the shuffle with each of them. */
  ShuffleAssignment registerShuffle(int shuffleId, int numPartitions)
      throws IOException, InterruptedException {
    AssignmentResponse response = coordinators.getAssignment(appId, shuffleId, numPartitions,
        client.conf().get(SluiceClientOptions.REPLICAS), List.of());
    ShuffleAssignment assignment = ShuffleAssignment.of(response);
    List<CompletableFuture<StatusResponse>> registrations = new ArrayList<>();
    for (int s = 0; s < assignment.serverCount(); s++) {
      int[] partitions = assignment.partitionsOf(s);
      if (partitions.length == 0) {
        continue;
      }
      TransportClient server = client.clients().getClient(assignment.host(s), assignment.port(s));
      String key = assignment.host(s) + ":" + assignment.port(s);
      if (registeredServers.add(key)) {
        serverAddresses.put(key, new String[] {assignment.host(s), String.valueOf(assignment.port(s))});
        await(server.request(new RegisterApplicationRequest(TransportClient.nextRequestId(), appId,
            user), StatusResponse.class), "register " + appId + " with " + assignment.describe(s));
      }
      registrations.add(server.request(new RegisterShuffleRequest(TransportClient.nextRequestId(),
          appId, shuffleId, numPartitions, partitions), StatusResponse.class));
    }
    for (CompletableFuture<StatusResponse> r : registrations) {
      await(r, "register shuffle " + shuffleId);
    }
    shuffles.put(shuffleId, assignment);
    return assignment;
  }

  /** Deletes a shuffle's data on its servers, without waiting. */
  void unregisterShuffle(int shuffleId) {
    ShuffleAssignment assignment = shuffles.remove(shuffleId);
    if (assignment == null) {
      return;
    }
    for (int s = 0; s < assignment.serverCount(); s++) {
      int server = s;
      try {
        client.clients().getClient(assignment.host(s), assignment.port(s))
            .request(new UnregisterShuffleRequest(TransportClient.nextRequestId(), appId,
                shuffleId), StatusResponse.class)
            .whenComplete((r, e) -> {
              if (e != null) {
                LOG.warn("Could not unregister shuffle {} on {}: {}", shuffleId,
                    assignment.describe(server), e.toString());
              }
            });
      } catch (IOException e) {
        LOG.warn("Could not unregister shuffle {} on {}: {}", shuffleId,
            assignment.describe(server), e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void heartbeat() {
    try {
      coordinators.appHeartbeat(appId);
    } catch (Exception e) {
      LOG.warn("Application heartbeat to the coordinators failed: {}", e.toString());
    }
    forEachServer(c -> c.request(new AppHeartbeatRequest(TransportClient.nextRequestId(), appId),
        StatusResponse.class));
  }

  private void forEachServer(java.util.function.Function<TransportClient,
      CompletableFuture<StatusResponse>> call) {
    for (String[] hp : serverAddresses.values()) {
      try {
        call.apply(client.clients().getClient(hp[0], Integer.parseInt(hp[1])))
            .whenComplete((r, e) -> {
              if (e != null) {
                LOG.warn("Request to server {}:{} failed: {}", hp[0], hp[1], e.toString());
              }
            });
      } catch (IOException e) {
        LOG.warn("Cannot reach server {}:{}: {}", hp[0], hp[1], e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @Override
  public void close() {
    heartbeats.cancel(false);
    List<CompletableFuture<StatusResponse>> done = new ArrayList<>();
    forEachServer(c -> {
      CompletableFuture<StatusResponse> f = c.request(
          new UnregisterApplicationRequest(TransportClient.nextRequestId(), appId),
          StatusResponse.class);
      done.add(f);
      return f;
    });
    for (CompletableFuture<StatusResponse> f : done) {
      try {
        f.get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.debug("Unregistering {} did not complete: {}", appId, e.toString());
      }
    }
    try {
      coordinators.unregisterApplication(appId);
    } catch (Exception e) {
      LOG.warn("Could not unregister {} with the coordinators: {}", appId, e.toString());
    }
    coordinators.close();
  }

  private static void await(CompletableFuture<StatusResponse> f, String what)
      throws IOException, InterruptedException {
    try {
      f.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new IOException(what + " failed: " + cause.getMessage(), cause);
    }
  }
}
