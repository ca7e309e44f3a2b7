package io.sluice.client.spark.driver;

import io.sluice.client.spark.SluiceClientOptions;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.RegisterApplicationRequest;
import io.sluice.common.protocol.message.RegisterShuffleRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.protocol.message.UnregisterApplicationRequest;
import io.sluice.common.protocol.message.UnregisterShuffleRequest;
import io.sluice.common.shuffle.Retries;
import io.sluice.common.transport.Connections;
import io.sluice.common.transport.TransportClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's requests to shuffle servers: registering the application and a shuffle on the
 * servers that will hold it, heart-beats that keep the application alive there, and deletion. Every
 * call is asynchronous with a bounded wait, so that no slow or silent server delays the others. A
 * server that answers a heartbeat with UNKNOWN_APPLICATION restarted: the application is registered
 * there again, so that the server can be given new partitions. The application is registered on a
 * server once: later shuffles register with one round trip, and a server that answers
 * UNKNOWN_APPLICATION (it restarted or expired the application) gets the application again before
 * the shuffle.
 */
final class ServerRegistrar {
  private static final Logger LOG = LoggerFactory.getLogger(ServerRegistrar.class);

  private final Connections clients;
  private final String appId;
  private final String user;
  private final Duration timeout;
  private final Set<ServerAddress> known = ConcurrentHashMap.newKeySet();

  /** Waits of 20 ms doubling, 2.5 s in all, for a registration the server answers BUSY. */
  private static final int BUSY_RETRIES = 7;

  private static final long BUSY_FIRST_WAIT_MILLIS = 20;

  /** Servers that accepted this application's registration. */
  private final Set<ServerAddress> registered = ConcurrentHashMap.newKeySet();

  /**
   * @param timeout how long one server may take to answer one of these calls
   */
  ServerRegistrar(Connections clients, String appId, String user, Duration timeout) {
    this.clients = clients;
    this.appId = appId;
    this.user = user;
    this.timeout = timeout;
  }

  /** Registers the application and then the shuffle on every server; fails if any server does. */
  CompletableFuture<Void> register(
      Collection<ServerAddress> servers, int shuffleId, int numPartitions) {
    List<CompletableFuture<StatusResponse>> all = new ArrayList<>();
    registerEach(servers, shuffleId, numPartitions)
        .forEach(
            (server, registered) ->
                all.add(
                    registered.exceptionally(
                        e -> {
                          throw new IllegalStateException(
                              "cannot register shuffle "
                                  + shuffleId
                                  + " on "
                                  + server
                                  + ": "
                                  + Retries.unwrap(e).getMessage(),
                              Retries.unwrap(e));
                        })));
    return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]));
  }

  /**
   * Registers the application and then the shuffle on every server; the outcome per server, each
   * send bounded by the call timeout, plus up to 2.5 s of back-off while a server answers BUSY.
   */
  Map<ServerAddress, CompletableFuture<StatusResponse>> registerEach(
      Collection<ServerAddress> servers, int shuffleId, int numPartitions) {
    Map<ServerAddress, CompletableFuture<StatusResponse>> outcomes = new LinkedHashMap<>();
    for (ServerAddress server : servers) {
      known.add(server);
      outcomes.put(
          server,
          registered.contains(server)
              ? registerShuffle(server, shuffleId, numPartitions)
                  .exceptionallyCompose(
                      e ->
                          Retries.hasStatus(e, StatusCode.UNKNOWN_APPLICATION)
                              ? registerApplication(server)
                                  .thenCompose(
                                      ok -> registerShuffle(server, shuffleId, numPartitions))
                              : CompletableFuture.failedFuture(e))
              : registerApplication(server)
                  .thenCompose(ok -> registerShuffle(server, shuffleId, numPartitions)));
    }
    return outcomes;
  }

  private CompletableFuture<StatusResponse> registerApplication(ServerAddress server) {
    return callWhileBusy(
            server,
            () -> new RegisterApplicationRequest(TransportClient.nextRequestId(), appId, user),
            0)
        .thenApply(
            ok -> {
              registered.add(server);
              return ok;
            });
  }

  private CompletableFuture<StatusResponse> registerShuffle(
      ServerAddress server, int shuffleId, int numPartitions) {
    return callWhileBusy(
        server,
        () ->
            new RegisterShuffleRequest(
                TransportClient.nextRequestId(), appId, shuffleId, numPartitions),
        0);
  }

  /**
   * {@link #call}, sent again after a back-off while the server answers BUSY: a server still
   * deleting an earlier registration of the same application or shuffle id (a shuffle Spark removed
   * and revives) refuses it for as long as that takes, usually milliseconds. A server that stays
   * busy fails the call, and the driver registers elsewhere.
   */
  private CompletableFuture<StatusResponse> callWhileBusy(
      ServerAddress server, Supplier<RequestMessage> request, int retry) {
    return call(server, request.get())
        .exceptionallyCompose(
            e ->
                Retries.hasStatus(e, StatusCode.BUSY) && retry < BUSY_RETRIES
                    ? CompletableFuture.runAsync(
                            () -> {},
                            CompletableFuture.delayedExecutor(
                                BUSY_FIRST_WAIT_MILLIS << retry, TimeUnit.MILLISECONDS))
                        .thenCompose(ok -> callWhileBusy(server, request, retry + 1))
                    : CompletableFuture.failedFuture(e));
  }

  /** Tells every server that held data of the application that it lives; never waits. */
  void heartbeat() {
    for (ServerAddress server : known) {
      call(server, new AppHeartbeatRequest(TransportClient.nextRequestId(), appId))
          .whenComplete(
              (ok, error) -> {
                if (error == null) {
                  return;
                }
                if (Retries.hasStatus(error, StatusCode.UNKNOWN_APPLICATION)) {
                  LOG.info(
                      "Server {} no longer knows {} (it restarted); registering it again",
                      server,
                      appId);
                  registered.remove(server);
                  registerApplication(server);
                } else {
                  LOG.debug("Heartbeat to {} failed: {}", server, Retries.unwrap(error).toString());
                }
              });
    }
  }

  /** Deletes a shuffle's data on the servers; does not wait. */
  void unregisterShuffle(Collection<ServerAddress> servers, int shuffleId) {
    for (ServerAddress server : servers) {
      call(server, new UnregisterShuffleRequest(TransportClient.nextRequestId(), appId, shuffleId))
          .whenComplete(
              (ok, e) -> {
                if (e != null) {
                  LOG.warn(
                      "Could not unregister shuffle {} on {}: {}",
                      shuffleId,
                      server,
                      Retries.unwrap(e).toString());
                }
              });
    }
  }

  /** Deletes the application on every server, waiting at most the call timeout. */
  void unregisterApplication() {
    List<CompletableFuture<StatusResponse>> all = new ArrayList<>();
    for (ServerAddress server : known) {
      all.add(
          call(server, new UnregisterApplicationRequest(TransportClient.nextRequestId(), appId)));
    }
    try {
      CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.debug("Unregistering {} did not complete everywhere: {}", appId, e.toString());
    }
  }

  private CompletableFuture<StatusResponse> call(ServerAddress server, RequestMessage request) {
    return clients
        .getClientAsync(server.host(), server.port())
        .thenCompose(c -> c.request(request, StatusResponse.class))
        .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(
            e ->
                CompletableFuture.failedFuture(
                    Retries.unwrap(e) instanceof TimeoutException
                        ? new TimeoutException(
                            server
                                + " did not answer "
                                + request.type()
                                + " within "
                                + SluiceClientOptions.CALL_TIMEOUT.key()
                                + " ("
                                + timeout
                                + ")")
                        : Retries.unwrap(e)));
  }
}
