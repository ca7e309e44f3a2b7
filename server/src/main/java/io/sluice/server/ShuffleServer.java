package io.sluice.server;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.common.auth.AuthOptions;
import io.sluice.common.auth.Credentials;
import io.sluice.common.auth.Secret;
import io.sluice.common.auth.ServerAuth;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.metrics.StatusHttpServer;
import io.sluice.common.protocol.AuthRole;
import io.sluice.common.protocol.message.ServerState;
import io.sluice.common.transport.NettyTransports;
import io.sluice.common.transport.ReceiveBudget;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.common.transport.TransportServer;
import io.sluice.server.flush.FlushManager;
import io.sluice.server.handler.ShuffleRequestHandler;
import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.memory.ReadBudget;
import io.sluice.server.memory.ReadBuffers;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.replication.ReplicaForwarder;
import io.sluice.server.shuffle.PartitionFlusher;
import io.sluice.server.shuffle.ShuffleStore;
import io.sluice.server.shuffle.StoreLimits;
import io.sluice.server.storage.DiskManager;
import io.sluice.server.storage.FileIo;
import io.sluice.server.storage.HdfsTier;
import io.sluice.server.storage.PartitionFiles;
import io.sluice.server.storage.RestartManifest;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shuffle server: assembles memory, storage, flushing, request handling and its HTTP port, and
 * runs their life cycle (start, drain, stop). What each part does lives in the part; the gauges in
 * {@link ServerGauges}, the restart record in {@link RestartRecord}.
 */
public final class ShuffleServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ShuffleServer.class);

  private final SluiceConf conf;

  private final ServerMetrics metrics = new ServerMetrics();
  private final PooledByteBufAllocator networkAllocator;
  private final PushBufferPool pushPool;
  private final ReadBudget readBudget;
  private final DiskManager disks;

  /** Null without {@code hdfs.dir}. */
  private final HdfsTier hdfs;

  private final ShuffleStore store;
  private final FlushManager flushManager;
  private final ExecutorService control;
  private final ScheduledExecutorService housekeeping;
  private final TransportServer transport;

  /** Connections to other servers, for forwarding pushes along replica chains. */
  private final TransportClientFactory peers;

  private final StatusHttpServer http;
  private final String serverId;
  private final String advertisedHost;
  private final ServerHeartbeats heartbeats;

  /** Where a clean stop records what the server holds for its next start. */
  private final RestartRecord restartRecord;

  private volatile ServerState state = ServerState.ACTIVE;

  public ShuffleServer(SluiceConf conf) throws IOException {
    this(conf, FileIo.DEFAULT);
  }

  /**
   * @param io how storage opens files (tests inject failures here)
   */
  public ShuffleServer(SluiceConf conf, FileIo io) throws IOException {
    AuthOptions.refuseUnauthenticatedOffLoopback(conf, ServerOptions.BIND_HOST);
    // What a start that fails half-way must close again: threads, the tier, bound ports.
    Deque<AutoCloseable> opened = new ArrayDeque<>();
    try {
      this.conf = conf;
      this.pushPool =
          new PushBufferPool(
              conf.get(ServerOptions.BUFFER_CAPACITY),
              conf.get(ServerOptions.FLUSH_HIGH_WATERMARK),
              conf.get(ServerOptions.FLUSH_LOW_WATERMARK),
              PushBufferPool.minBlockCharge(
                  conf.get(ServerOptions.BUFFER_CAPACITY),
                  conf.get(ServerOptions.HEAP_BLOCKS_IN_MEMORY)),
              conf.get(ServerOptions.CHUNK_KEEP));
      opened.push(pushPool::close);
      this.readBudget =
          new ReadBudget(
              conf.get(ServerOptions.READ_BUFFER_CAPACITY), conf.get(ServerOptions.CHUNK_KEEP));
      this.networkAllocator =
          NettyTransports.pooledAllocator(Math.max(1, Runtime.getRuntime().availableProcessors()));
      List<Path> dirs = conf.get(ServerOptions.LOCAL_DIRS).stream().map(Path::of).toList();
      this.restartRecord = new RestartRecord(dirs);
      List<RestartManifest.Application> recovered =
          conf.get(ServerOptions.RECOVERY_ENABLED) ? restartRecord.read() : List.of();
      Set<String> keep =
          recovered.stream().map(RestartManifest.Application::appId).collect(Collectors.toSet());
      this.disks =
          new DiskManager(
              dirs,
              conf.get(ServerOptions.DISK_MIN_FREE),
              conf.get(ServerOptions.FLUSH_THREADS_PER_DISK),
              conf.get(ServerOptions.READ_THREADS_PER_DISK),
              io,
              keep);
      opened.push(disks);
      String bindHost = conf.get(ServerOptions.BIND_HOST);
      this.advertisedHost =
          conf.getOptional(ServerOptions.ADVERTISED_HOST)
              .orElseGet(
                  () ->
                      InetAddress.getLoopbackAddress().getHostAddress().equals(bindHost)
                          ? bindHost
                          : canonicalHostName());
      this.hdfs = HdfsTierOpener.open(conf, advertisedHost, dirs, keep);
      if (hdfs != null) {
        opened.push(hdfs);
      }
      long hdfsThreshold =
          conf.getOptional(ServerOptions.HDFS_PARTITION_THRESHOLD).orElse(Long.MAX_VALUE);
      this.store =
          new ShuffleStore(
              (app, shuffle, partition) ->
                  new PartitionFiles(disks, hdfs, hdfsThreshold, io, app, shuffle, partition),
              disks,
              hdfs,
              pushPool::free,
              System::nanoTime,
              StoreLimits.of(conf));
      ShuffleStore.Recovery recovery = store.restore(recovered);
      metrics.recovered(recovery.servedPartitions(), recovery.droppedPartitions());
      this.flushManager =
          new FlushManager(
              store,
              disks,
              hdfs,
              pushPool,
              new PartitionFlusher(pushPool, metrics, conf.get(ServerOptions.FLUSH_DIRECT)),
              conf.get(ServerOptions.PARTITION_FLUSH_THRESHOLD),
              metrics);
      opened.push(flushManager);
      this.control =
          new ThreadPoolExecutor(
              2,
              2,
              0,
              TimeUnit.SECONDS,
              new LinkedBlockingQueue<>(),
              daemonThreads("sluice-control"));
      opened.push(control::shutdownNow);
      this.housekeeping =
          Executors.newSingleThreadScheduledExecutor(daemonThreads("sluice-expiry"));
      opened.push(housekeeping::shutdownNow);

      TransportConf transportConf = new TransportConf(conf);
      // The id is known once the port is bound; the handshake reports it from then on.
      String configuredId = conf.getOptional(ServerOptions.SERVER_ID).orElse(null);
      this.peers =
          new TransportContext(
                  transportConf,
                  ReplicaForwarder.CLIENT_ID_PREFIX
                      + (configuredId == null ? "sluice-server" : configuredId),
                  networkAllocator)
              .createClientFactory();
      opened.push(peers);
      Secret clusterSecret = AuthOptions.clusterSecret(conf);
      ShuffleRequestHandler handler =
          new ShuffleRequestHandler(
              store,
              pushPool,
              readBudget,
              flushManager,
              new ReplicaForwarder(
                  peers,
                  app -> forwardingCredentials(app, clusterSecret),
                  networkAllocator,
                  conf.get(ServerOptions.REPLICATION_TIMEOUT)),
              metrics,
              control,
              hdfs == null ? null : hdfs.readExecutor(),
              transportConf.maxFrameSize(),
              conf.get(ServerOptions.PUSH_WAIT),
              clusterSecret != null);
      // Executors prove their application's secret; drivers bring it, proving the cluster secret.
      ServerAuth auth =
          clusterSecret == null
              ? ServerAuth.disabled()
              : new ServerAuth(
                  EnumSet.of(AuthRole.APPLICATION, AuthRole.REGISTRAR),
                  clusterSecret,
                  store::appSecret);
      this.transport =
          new TransportContext(
                  transportConf,
                  configuredId == null ? "sluice-server" : configuredId,
                  networkAllocator)
              .createServer(bindHost, conf.get(ServerOptions.PORT), handler, auth);
      opened.push(transport);
      this.serverId = configuredId != null ? configuredId : advertisedHost + ":" + transport.port();

      ServerGauges.register(this);
      int httpPort = conf.get(ServerOptions.HTTP_PORT);
      this.http =
          httpPort < 0
              ? null
              : new StatusHttpServer(
                  bindHost, httpPort, metrics.registry(), this::status, this::notReadyReason);
      if (http != null) {
        opened.push(http);
      }

      Duration expiry = conf.get(ServerOptions.APP_EXPIRY);
      long sweep = Math.max(100, Math.min(expiry.toMillis() / 4, 10_000));
      housekeeping.scheduleWithFixedDelay(
          () -> {
            try {
              store.expire(expiry);
            } catch (RuntimeException e) {
              LOG.error("Application expiry failed", e);
            }
          },
          sweep,
          sweep,
          TimeUnit.MILLISECONDS);
      ReadBuffers directReads = readBudget.directReads();
      housekeeping.scheduleWithFixedDelay(
          () -> {
            try {
              directReads.freeIdle();
            } catch (RuntimeException e) {
              // Caught: an exception would cancel every later run.
              LOG.error("Freeing idle direct-read buffers failed", e);
            }
          },
          1,
          1,
          TimeUnit.SECONDS);
      this.heartbeats =
          new ServerHeartbeats(
              this,
              conf,
              transportConf,
              clusterSecret == null ? Credentials.none() : Credentials.cluster(clusterSecret));
      opened.push(heartbeats);
      LOG.info(
          "Shuffle server {} serving on port {} ({} {} bytes, {} {} bytes, {} local dirs)",
          serverId,
          transport.port(),
          ServerOptions.BUFFER_CAPACITY.key(),
          pushPool.capacity(),
          ServerOptions.READ_BUFFER_CAPACITY.key(),
          readBudget.capacity(),
          dirs.size());
    } catch (IOException | RuntimeException | Error e) {
      closeAll(opened, e);
      throw e;
    }
    restartRecord.spend();
  }

  public String serverId() {
    return serverId;
  }

  /** Closes what a failed start opened, last first; failures go with {@code cause}. */
  private static void closeAll(Deque<AutoCloseable> opened, Throwable cause) {
    while (!opened.isEmpty()) {
      try {
        opened.pop().close();
      } catch (Exception e) {
        cause.addSuppressed(e);
      }
    }
  }

  /** The HDFS tier, or null without {@code hdfs.dir}. */
  public HdfsTier hdfs() {
    return hdfs;
  }

  /**
   * A forward to the next server of a chain authenticates as the application whose blocks it
   * carries, with the secret this server holds for it.
   */
  private Credentials forwardingCredentials(String appId, Secret clusterSecret) {
    Secret appSecret = clusterSecret == null ? null : store.appSecret(appId);
    return appSecret == null ? Credentials.none() : Credentials.application(appId, appSecret);
  }

  public String advertisedHost() {
    return advertisedHost;
  }

  public int port() {
    return transport.port();
  }

  /** The HTTP port, or -1 when HTTP is disabled. */
  public int httpPort() {
    return http == null ? -1 : http.port();
  }

  public ServerState state() {
    return state;
  }

  public PushBufferPool pushPool() {
    return pushPool;
  }

  public FlushManager flushManager() {
    return flushManager;
  }

  public ReadBudget readBudget() {
    return readBudget;
  }

  /** The bound on frames being received on the shuffle port. */
  public ReceiveBudget receiveBudget() {
    return transport.receiveBudget();
  }

  /** Connections open on the shuffle port. */
  public int connectionCount() {
    return transport.connectionCount();
  }

  public PooledByteBufAllocator networkAllocator() {
    return networkAllocator;
  }

  public ShuffleStore store() {
    return store;
  }

  public DiskManager disks() {
    return disks;
  }

  public ServerMetrics metrics() {
    return metrics;
  }

  /** Why the server takes no new shuffles ({@code /ready}), or null when it does. */
  private String notReadyReason() {
    ServerState now = state;
    return now == ServerState.ACTIVE ? null : "the server is " + now;
  }

  /** The server's state as {@code /status} shows it. */
  public Object status() {
    return ServerStatusReport.of(this);
  }

  /**
   * Stops taking data and waits, at most {@code timeout}, until every application holding data here
   * has ended: heart-beats report DECOMMISSIONING so that coordinators assign nothing new, pushes
   * and new shuffles are refused SHUTTING_DOWN so that writers move their partitions, and reads and
   * commits go on. Readers of what it held afterwards read the replicas.
   *
   * @return whether every application ended in time
   */
  public boolean drain(Duration timeout) throws InterruptedException {
    state = ServerState.DECOMMISSIONING;
    store.startDraining();
    LOG.info(
        "Shuffle server {} is draining ({} applications hold data; waiting at most {}, {})",
        serverId,
        store.applications().size(),
        timeout,
        ServerOptions.DRAIN_TIMEOUT.key());
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!store.applications().isEmpty()) {
      if (System.nanoTime() >= deadline) {
        LOG.info(
            "Drain of {} timed out with {} applications left",
            serverId,
            store.applications().size());
        return false;
      }
      Thread.sleep(100);
    }
    return true;
  }

  @Override
  public void close() {
    state = ServerState.DECOMMISSIONING;
    heartbeats.close();
    if (http != null) {
      http.close();
    }
    transport.close();
    peers.close();
    housekeeping.shutdownNow();
    control.shutdown();
    awaitStopped(housekeeping);
    awaitStopped(control);
    boolean kept =
        conf.get(ServerOptions.RECOVERY_ENABLED)
            && restartRecord.write(
                flushManager, store, disks, conf.get(ServerOptions.STOP_FLUSH_TIMEOUT));
    flushManager.close();
    disks.close();
    for (var app : List.copyOf(store.applications())) {
      if (kept) {
        store.forgetApplication(app.appId());
      } else {
        store.unregisterApplication(app.appId());
      }
    }
    if (hdfs != null) {
      try {
        hdfs.close();
      } catch (IOException e) {
        LOG.warn("Closing the HDFS tier failed: {}", e.toString());
      }
    }
    pushPool.close();
    readBudget.close();
    LOG.info("Shuffle server {} stopped", serverId);
  }

  /** Waits a little for an executor's running task to end, so that it cannot race the stop. */
  private static void awaitStopped(ExecutorService executor) {
    try {
      if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("A housekeeping task still runs while the server stops");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static java.util.concurrent.ThreadFactory daemonThreads(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  private static String canonicalHostName() {
    try {
      return InetAddress.getLocalHost().getCanonicalHostName();
    } catch (IOException e) {
      return InetAddress.getLoopbackAddress().getHostAddress();
    }
  }
}
