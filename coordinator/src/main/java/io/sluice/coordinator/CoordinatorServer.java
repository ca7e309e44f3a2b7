package io.sluice.coordinator;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.common.auth.AuthOptions;
import io.sluice.common.auth.Secret;
import io.sluice.common.auth.SecretFile;
import io.sluice.common.auth.ServerAuth;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.metrics.StatusHttpServer;
import io.sluice.common.protocol.AuthRole;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportServer;
import io.sluice.coordinator.app.ApplicationRegistry;
import io.sluice.coordinator.assignment.AssignmentLimits;
import io.sluice.coordinator.assignment.ShuffleAssigner;
import io.sluice.coordinator.exclusion.ExclusionFileWatcher;
import io.sluice.coordinator.exclusion.ExclusionList;
import io.sluice.coordinator.http.AdminHandler;
import io.sluice.coordinator.http.ApplicationsPage;
import io.sluice.coordinator.http.ClusterPage;
import io.sluice.coordinator.http.StatusPage;
import io.sluice.coordinator.metrics.CoordinatorMetrics;
import io.sluice.coordinator.registry.ServerRecord;
import io.sluice.coordinator.registry.ServerRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running coordinator: the server registry, application registry, exclusions and assigner behind
 * a transport server, the HTTP port ({@code /metrics}, {@code /status}, {@code /admin/...}), and a
 * maintenance thread that drops silent servers and applications and re-reads the exclusion file.
 */
public final class CoordinatorServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorServer.class);

  /** How often, at most, silent servers and applications are swept out of the registries. */
  private static final long MAX_SWEEP_INTERVAL_MILLIS = 1000;

  private static final long MIN_SWEEP_INTERVAL_MILLIS = 100;

  /** Assignment requests waiting for the assigner beyond which new ones are answered BUSY. */
  static final int MAX_QUEUED_ASSIGNMENTS = 1024;

  private final String id;
  private final ExclusionList exclusions = new ExclusionList();
  private final ServerRegistry servers;
  private final ApplicationRegistry apps;
  private final ShuffleAssigner assigner;
  private final CoordinatorMetrics metrics;
  private final ExclusionFileWatcher exclusionFile;
  private final ScheduledExecutorService maintenance;
  private final ExecutorService assignmentExecutor;
  private TransportServer transportServer;
  private StatusHttpServer httpServer;
  private boolean closed;

  private CoordinatorServer(SluiceConf conf, Clock clock) {
    AuthOptions.refuseUnauthenticatedOffLoopback(conf, CoordinatorOptions.BIND_HOST);
    this.servers =
        new ServerRegistry(
            clock, conf.get(CoordinatorOptions.SERVER_HEARTBEAT_TIMEOUT), exclusions);
    this.apps =
        new ApplicationRegistry(
            clock,
            conf.get(CoordinatorOptions.APP_EXPIRY),
            conf.get(CoordinatorOptions.MAX_APPS_PER_USER));
    this.assigner =
        new ShuffleAssigner(
            servers,
            conf.get(CoordinatorOptions.MAX_SERVERS_PER_SHUFFLE),
            conf.get(CoordinatorOptions.LOAD_HALF_PARTITIONS),
            conf.get(CoordinatorOptions.PENDING_EXPIRY).toMillis(),
            conf.get(CoordinatorOptions.REFRESH_INTERVAL).toMillis());
    this.metrics = new CoordinatorMetrics(servers, apps, exclusions);
    this.exclusionFile =
        conf.getOptional(CoordinatorOptions.EXCLUDE_FILE)
            .map(file -> new ExclusionFileWatcher(Path.of(file), exclusions))
            .orElse(null);
    this.maintenance =
        Executors.newSingleThreadScheduledExecutor(daemonThreads("sluice-coordinator-maintenance"));
    // One thread (assignments are computed one at a time anyway) and a bounded queue: a flood of
    // requests is answered BUSY, and the client tries the next coordinator, instead of piling up.
    this.assignmentExecutor =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(MAX_QUEUED_ASSIGNMENTS),
            daemonThreads("sluice-coordinator-assigner"));
    String host = conf.get(CoordinatorOptions.BIND_HOST);
    int port = conf.get(CoordinatorOptions.PORT);
    this.id =
        conf.getOptional(CoordinatorOptions.ID).orElseGet(() -> localHostName(host) + ":" + port);
    try {
      if (exclusionFile != null) {
        exclusionFile.check();
      }
      TransportConf transportConf = new TransportConf(conf);
      TransportContext context =
          new TransportContext(transportConf, id, PooledByteBufAllocator.DEFAULT);
      AssignmentLimits limits =
          new AssignmentLimits(
              conf.get(CoordinatorOptions.MAX_PARTITIONS),
              conf.get(CoordinatorOptions.MAX_REPLICAS),
              transportConf.maxFrameSize());
      Secret clusterSecret = AuthOptions.clusterSecret(conf);
      // Only cluster members (servers heart-beating, drivers) talk to a coordinator.
      ServerAuth auth =
          clusterSecret == null
              ? ServerAuth.disabled()
              : new ServerAuth(Set.of(AuthRole.CLUSTER), clusterSecret, app -> null);
      this.transportServer =
          context.createServer(
              host,
              port,
              new CoordinatorRequestHandler(
                  servers, apps, assigner, limits, metrics, assignmentExecutor),
              auth);
      int httpPort = conf.get(CoordinatorOptions.HTTP_PORT);
      if (httpPort >= 0) {
        StatusPage status = new StatusPage(id, servers, apps, assigner);
        // Ready as soon as it answers: its RPC port is bound by now, and servers reach it through
        // the same Service that a readiness probe gates, so waiting for servers would never end.
        this.httpServer =
            new StatusHttpServer(host, httpPort, metrics.registry(), status::build, () -> null);
        Secret adminToken =
            conf.getOptional(CoordinatorOptions.ADMIN_TOKEN_FILE)
                .map(file -> SecretFile.read(file, CoordinatorOptions.ADMIN_TOKEN_FILE.key()))
                .orElse(null);
        httpServer.addHandler(
            AdminHandler.PREFIX,
            new AdminHandler(servers, adminToken, clusterSecret != null, host));
        httpServer.addHandler(ClusterPage.PATH, new ClusterPage(status::build));
        httpServer.addHandler(ApplicationsPage.PATH, new ApplicationsPage(apps, clock));
      }
    } catch (IOException e) {
      close();
      throw new UncheckedIOException(
          "cannot start the coordinator's HTTP server on "
              + host
              + ":"
              + conf.get(CoordinatorOptions.HTTP_PORT)
              + " ("
              + CoordinatorOptions.HTTP_PORT.key()
              + ")",
          e);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    long sweepMillis =
        Math.max(
            MIN_SWEEP_INTERVAL_MILLIS,
            Math.min(
                Math.min(MAX_SWEEP_INTERVAL_MILLIS, servers.timeoutMillis() / 4),
                conf.get(CoordinatorOptions.REFRESH_INTERVAL).toMillis()));
    maintenance.scheduleWithFixedDelay(
        this::sweep, sweepMillis, sweepMillis, TimeUnit.MILLISECONDS);
    if (exclusionFile != null) {
      long checkMillis = conf.get(CoordinatorOptions.EXCLUDE_FILE_CHECK_INTERVAL).toMillis();
      maintenance.scheduleWithFixedDelay(
          exclusionFile::check, checkMillis, checkMillis, TimeUnit.MILLISECONDS);
    }
  }

  /** Starts a coordinator with the system clock. */
  public static CoordinatorServer start(SluiceConf conf) {
    return start(conf, Clock.systemUTC());
  }

  /** Starts a coordinator; {@code clock} decides heartbeat and application expiry. */
  public static CoordinatorServer start(SluiceConf conf, Clock clock) {
    return new CoordinatorServer(conf, clock);
  }

  public String id() {
    return id;
  }

  /** The port servers and clients talk to. */
  public int port() {
    return transportServer.port();
  }

  /** The HTTP port, or -1 when HTTP is disabled. */
  public int httpPort() {
    return httpServer == null ? -1 : httpServer.port();
  }

  public ServerRegistry servers() {
    return servers;
  }

  public ApplicationRegistry applications() {
    return apps;
  }

  public ExclusionList exclusions() {
    return exclusions;
  }

  public ShuffleAssigner assigner() {
    return assigner;
  }

  /**
   * Drops servers and applications that have been silent for their timeouts, and brings the
   * assigner's candidate list up to date.
   */
  public void sweep() {
    try {
      List<ServerRecord> dropped = servers.expireStale();
      metrics.serversDropped(dropped.size());
      metrics.appsExpired(apps.expire().size());
      assigner.refresh();
    } catch (RuntimeException e) {
      LOG.error("Coordinator maintenance failed; will retry", e);
    }
  }

  /** Stops serving; idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (httpServer != null) {
      httpServer.close();
    }
    if (transportServer != null) {
      transportServer.close();
    }
    maintenance.shutdownNow();
    assignmentExecutor.shutdownNow();
  }

  private static String localHostName(String bindHost) {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return bindHost;
    }
  }

  private static java.util.concurrent.ThreadFactory daemonThreads(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
