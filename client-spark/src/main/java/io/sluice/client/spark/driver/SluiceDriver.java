package io.sluice.client.spark.driver;

import io.sluice.client.spark.ApplicationAuth;
import io.sluice.client.spark.ShuffleLocations;
import io.sluice.client.spark.SluiceClientContext;
import io.sluice.client.spark.SluiceClientOptions;
import io.sluice.client.spark.SluiceRelocationEvent;
import io.sluice.common.auth.Credentials;
import io.sluice.common.auth.Secret;
import io.sluice.common.auth.SecretFile;
import io.sluice.common.auth.ServerAuth;
import io.sluice.common.coordinator.CoordinatorAddress;
import io.sluice.common.coordinator.CoordinatorClient;
import io.sluice.common.protocol.AuthRole;
import io.sluice.common.protocol.message.AssignmentAnswer;
import io.sluice.common.transport.Connections;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportServer;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's side of Sluice: registers the application and each shuffle with the coordinator and
 * the assigned servers, owns every partition's locations ({@link ShuffleBook}) and serves them to
 * executors on its endpoint, moves partitions whose location failed ({@link Relocator}), keeps the
 * application alive with heart-beats that never wait on a slow peer, and frees shuffles and the
 * application on the servers when Spark is done with them.
 */
public final class SluiceDriver implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(SluiceDriver.class);

  private final SluiceClientContext client;
  private final String appId;
  private final CoordinatorClient coordinators;
  private final ServerRegistrar servers;
  private final ShuffleBooks books;
  private final ExecutorService relocations;
  private final ScheduledExecutorService coordinatorBeats;
  private final TransportServer endpoint;
  private final String endpointHost;
  private final ScheduledFuture<?> serverBeats;
  private final Duration callTimeout;
  private final ApplicationAuth auth;

  /**
   * @param bindHost the address the endpoint listens on
   * @param advertisedHost the host executors reach the endpoint at
   * @param onMove told of every move of partitions to new servers (on the relocation thread)
   */
  public SluiceDriver(
      SluiceClientContext client,
      String appId,
      String user,
      String bindHost,
      String advertisedHost,
      Consumer<SluiceRelocationEvent> onMove)
      throws IOException, InterruptedException {
    this.client = client;
    this.appId = appId;
    this.endpointHost = advertisedHost;
    List<String> list =
        client
            .conf()
            .getOptional(SluiceClientOptions.COORDINATORS)
            .filter(l -> !l.isEmpty())
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "Sluice needs '"
                            + SluiceClientOptions.COORDINATORS.key()
                            + "' (host:port of the coordinators)"));
    TransportConf transport = new TransportConf(client.conf());
    this.callTimeout = client.conf().get(SluiceClientOptions.CALL_TIMEOUT);
    // With authentication on, the driver proves the cluster secret: as a cluster member to the
    // coordinators, and as its application's registrar to the servers, which learn the
    // application's secret from it.
    boolean authenticated = client.conf().get(SluiceClientOptions.AUTH_ENABLED);
    this.auth = ApplicationAuth.forDriver(authenticated);
    Secret appSecret = auth.secret(appId);
    Secret clusterSecret =
        authenticated
            ? SecretFile.read(
                client.conf().get(SluiceClientOptions.AUTH_CLUSTER_SECRET_FILE),
                SluiceClientOptions.AUTH_CLUSTER_SECRET_FILE.key())
            : null;
    Connections toCoordinators =
        authenticated ? client.clients().as(Credentials.cluster(clusterSecret)) : client.clients();
    Connections toServers =
        authenticated
            ? client.clients().as(Credentials.registrar(appId, appSecret, clusterSecret))
            : client.clients();
    this.coordinators =
        new CoordinatorClient(
            toCoordinators,
            CoordinatorAddress.parseList(list, SluiceClientOptions.COORDINATORS.key()),
            callTimeout);
    coordinators.registerApplication(appId, user);
    this.servers = new ServerRegistrar(toServers, appId, user, callTimeout);
    this.relocations = Executors.newSingleThreadExecutor(daemon("sluice-driver-relocations"));
    Relocator relocator =
        new Relocator(
            appId,
            coordinators,
            servers,
            client.conf().get(SluiceClientOptions.REPLICAS),
            client.conf().get(SluiceClientOptions.SERVER_TAGS),
            callTimeout,
            System::nanoTime,
            onMove);
    this.books = new ShuffleBooks(relocator);
    this.endpoint =
        new TransportContext(transport, "sluice-driver-" + appId, client.allocator())
            .createServer(
                bindHost,
                client.conf().get(SluiceClientOptions.DRIVER_PORT),
                new DriverEndpoint(appId, books, relocations),
                authenticated
                    ? new ServerAuth(
                        Set.of(AuthRole.APPLICATION),
                        null,
                        id -> id.equals(appId) ? appSecret : null)
                    : ServerAuth.disabled());
    long interval = client.conf().get(SluiceClientOptions.HEARTBEAT_INTERVAL).toMillis();
    // The coordinators' client blocks while it fails over; it gets its own thread so that it never
    // delays the servers' heart-beats, which are asynchronous.
    this.coordinatorBeats =
        Executors.newSingleThreadScheduledExecutor(daemon("sluice-driver-heartbeat"));
    coordinatorBeats.scheduleWithFixedDelay(
        this::heartbeatCoordinators, interval, interval, TimeUnit.MILLISECONDS);
    this.serverBeats =
        client
            .scheduler()
            .scheduleWithFixedDelay(servers::heartbeat, interval, interval, TimeUnit.MILLISECONDS);
    LOG.info(
        "Sluice driver endpoint of {} listens on {}:{}", appId, advertisedHost, endpoint.port());
  }

  /** How this application's executors authenticate; travels in its shuffle handles. */
  public ApplicationAuth auth() {
    return auth;
  }

  public String endpointHost() {
    return endpointHost;
  }

  public int endpointPort() {
    return endpoint.port();
  }

  /**
   * Asks the coordinator for servers and registers the shuffle with each of them.
   *
   * @param dependency Spark's dependency of the shuffle: while Spark holds it, the shuffle can be
   *     used again after Spark removed its data (see {@link ShuffleBooks})
   */
  public ShuffleLocations registerShuffle(int shuffleId, int numPartitions, Object dependency)
      throws IOException, InterruptedException {
    AssignmentAnswer response =
        coordinators.getAssignment(
            appId,
            shuffleId,
            numPartitions,
            client.conf().get(SluiceClientOptions.REPLICAS),
            client.conf().get(SluiceClientOptions.SERVER_TAGS),
            List.of());
    ShuffleLocations locations = ShuffleLocations.of(response);
    try {
      servers
          .register(locations.servers(), shuffleId, numPartitions)
          .get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IOException(
          "cannot register shuffle "
              + shuffleId
              + " with its servers: "
              + e.getCause().getMessage(),
          e.getCause());
    } catch (TimeoutException e) {
      throw new IOException(
          "cannot register shuffle "
              + shuffleId
              + " with its servers "
              + locations.servers()
              + " within "
              + SluiceClientOptions.CALL_TIMEOUT.key()
              + " ("
              + callTimeout
              + ")",
          e);
    }
    books.add(new ShuffleBook(shuffleId, locations), dependency);
    return locations;
  }

  /** Deletes a shuffle's data on every server that held some, without waiting. */
  public void unregisterShuffle(int shuffleId) {
    ShuffleBook book = books.remove(shuffleId);
    if (book != null) {
      servers.unregisterShuffle(book.allServers(), shuffleId);
    }
  }

  private void heartbeatCoordinators() {
    try {
      coordinators.appHeartbeat(appId);
    } catch (Exception e) {
      LOG.warn("Application heartbeat to the coordinators failed: {}", e.toString());
    }
  }

  @Override
  public void close() {
    serverBeats.cancel(false);
    coordinatorBeats.shutdownNow();
    relocations.shutdownNow();
    endpoint.close();
    servers.unregisterApplication();
    try {
      coordinators.unregisterApplication(appId);
    } catch (Exception e) {
      LOG.warn("Could not unregister {} with the coordinators: {}", appId, e.toString());
    }
    coordinators.close();
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
