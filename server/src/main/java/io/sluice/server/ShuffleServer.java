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
import io.sluice.common.transport.TransportOptions;
import io.sluice.common.transport.TransportServer;
import io.sluice.server.flush.FlushManager;
import io.sluice.server.handler.ShuffleRequestHandler;
import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.memory.ReadBudget;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.replication.ReplicaForwarder;
import io.sluice.server.shuffle.PartitionFlusher;
import io.sluice.server.shuffle.ShuffleStore;
import io.sluice.server.shuffle.StoreLimits;
import io.sluice.server.storage.DiskManager;
import io.sluice.server.storage.FileIo;
import io.sluice.server.storage.HdfsLogin;
import io.sluice.server.storage.HdfsTier;
import io.sluice.server.storage.LocalDisk;
import io.sluice.server.storage.PartitionFiles;
import io.sluice.server.storage.RestartManifest;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
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

/** A shuffle server: assembles memory, storage, flushing, request handling and its HTTP port. */
public final class ShuffleServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ShuffleServer.class);

  /** How long a stopping server may take to write its blocks to disk for its next start. */
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

  /** Where a clean stop may record what the server holds: the same file in every local dir. */
  private final List<Path> manifests;

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
      this.readBudget = new ReadBudget(conf.get(ServerOptions.READ_BUFFER_CAPACITY));
      this.networkAllocator =
          NettyTransports.pooledAllocator(Math.max(1, Runtime.getRuntime().availableProcessors()));
      List<Path> dirs = conf.get(ServerOptions.LOCAL_DIRS).stream().map(Path::of).toList();
      this.manifests = RestartManifest.locations(dirs);
      List<RestartManifest.Application> recovered = recoverable(conf);
      Set<String> keep =
          recovered.stream().map(RestartManifest.Application::appId).collect(Collectors.toSet());
      this.disks =
          new DiskManager(
              dirs,
              conf.get(ServerOptions.DISK_MIN_FREE),
              conf.get(ServerOptions.FLUSH_THREADS_PER_DISK),
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
      this.hdfs = openHdfsTier(conf, advertisedHost, dirs, keep);
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

      registerGauges();
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
    // Only now, serving, is the record spent: a start that failed before leaves it for the next.
    // From here on the data changes, so a crash must find no record.
    for (Path m : manifests) {
      try {
        Files.deleteIfExists(m);
      } catch (IOException e) {
        LOG.warn(
            "Cannot delete the restart record {}; a later start would read it: {}",
            m,
            e.toString());
      }
    }
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

  private static HdfsTier openHdfsTier(
      SluiceConf conf, String host, List<Path> dirs, Set<String> keep) throws IOException {
    String dir = conf.getOptional(ServerOptions.HDFS_DIR).orElse(null);
    if (dir == null) {
      return null;
    }
    try {
      HdfsLogin.Keytab keytab =
          conf.getOptional(ServerOptions.HDFS_KERBEROS_PRINCIPAL)
              .map(
                  principal ->
                      new HdfsLogin.Keytab(
                          principal,
                          conf.get(ServerOptions.HDFS_KERBEROS_KEYTAB),
                          conf.get(ServerOptions.HDFS_KERBEROS_RELOGIN_CHECK)))
              .orElse(null);
      HdfsTier tier =
          HdfsTier.open(
              dir,
              host,
              dirs,
              conf.get(ServerOptions.HDFS_FLUSH_THREADS),
              conf.get(ServerOptions.HDFS_READ_THREADS),
              keep,
              keytab,
              ServerOptions.HDFS_KERBEROS_KEYTAB.key());
      LOG.info("HDFS tier in {}", tier.root());
      return tier;
    } catch (IOException | IllegalArgumentException e) {
      String hint =
          !conf.isSet(ServerOptions.HDFS_KERBEROS_PRINCIPAL) && wantsKerberos(e)
              ? "; this HDFS requires Kerberos: set '"
                  + ServerOptions.HDFS_KERBEROS_PRINCIPAL.key()
                  + "' and '"
                  + ServerOptions.HDFS_KERBEROS_KEYTAB.key()
                  + "'"
              : "";
      throw new IOException(
          "cannot use " + ServerOptions.HDFS_DIR.key() + " = " + dir + ": " + e.getMessage() + hint,
          e);
    }
  }

  /** Whether Hadoop refused a connection for want of Kerberos (its message, anywhere inside). */
  private static boolean wantsKerberos(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage());
      if (message.contains("SIMPLE authentication is not enabled")) {
        return true;
      }
    }
    return false;
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

  private void registerGauges() {
    if (hdfs != null) {
      metrics.gauge(
          "sluice_server_hdfs_writable",
          ServerOptions.HDFS_DIR.key(),
          () -> hdfs.isWritable() ? 1 : 0);
      HdfsLogin login = hdfs.login();
      metrics.gauge(
          "sluice_server_hdfs_kerberos_ticket_expiry_seconds",
          "Seconds until the Kerberos ticket for HDFS expires ("
              + ServerOptions.HDFS_KERBEROS_KEYTAB.key()
              + "), -1 without a Kerberos login",
          () ->
              login == null ? -1 : (login.ticketEndMillis() - System.currentTimeMillis()) / 1000.0);
    }
    metrics.gauge(
        "sluice_server_push_memory_capacity_bytes",
        ServerOptions.BUFFER_CAPACITY.key(),
        pushPool::capacity);
    metrics.gauge(
        "sluice_server_read_memory_used_bytes",
        "Memory of in-memory data being served",
        readBudget::usedBytes);
    metrics.gauge(
        "sluice_server_read_memory_capacity_bytes",
        ServerOptions.READ_BUFFER_CAPACITY.key(),
        readBudget::capacity);
    metrics.gauge(
        "sluice_server_network_memory_bytes",
        "Direct memory of the network pool (receive buffers, response headers)",
        () -> networkAllocator.metric().usedDirectMemory());
    metrics.gauge(
        "sluice_server_netty_direct_memory_bytes",
        "Direct memory Netty holds in this JVM, all pools",
        io.netty.util.internal.PlatformDependent::usedDirectMemory);
    metrics.gauge(
        "sluice_server_receive_reserved_bytes",
        "Receive memory reserved by frames being received",
        () -> transport.receiveBudget().reservedBytes());
    metrics.gauge(
        "sluice_server_receive_capacity_bytes",
        TransportOptions.RECEIVE_MEMORY.key(),
        () -> transport.receiveBudget().capacity());
    metrics.gauge(
        "sluice_server_receive_waiting_connections",
        "Connections not reading until their frame fits the receive memory",
        () -> transport.receiveBudget().queuedCount());
    metrics.gauge("sluice_server_connections", "Connections open", transport::connectionCount);
    metrics.gauge("sluice_server_partitions", "Partitions held", store::partitionCount);
    metrics.gauge(
        "sluice_server_commit_heap_used_bytes",
        "Heap reserved by partition states, commit counts and attempt tables",
        store::commitHeapBytes);
    metrics.gauge(
        "sluice_server_commit_heap_capacity_bytes",
        ServerOptions.HEAP_COMMIT_PAIRS.key() + " x 1.5 bytes",
        store::commitHeapCapacityBytes);
    metrics.gauge(
        "sluice_server_applications", "Applications registered", () -> store.applications().size());
    metrics.gauge(
        "sluice_server_healthy_disks",
        "Local directories taking data",
        () -> disks.disks().stream().filter(d -> d.isHealthy()).count());
    metrics.gauge(
        "sluice_server_disk_used_bytes",
        "Bytes used on all local directories' disks",
        () -> disks.disks().stream().mapToLong(d -> d.totalBytes() - d.usableBytes()).sum());
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
    boolean kept = conf.get(ServerOptions.RECOVERY_ENABLED) && keepForRestart();
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
    LOG.info("Shuffle server {} stopped", serverId);
  }

  /**
   * Writes every block to disk and records what the server holds for its next start; false (and
   * nothing recorded) when a block could not be written.
   */
  private boolean keepForRestart() {
    try {
      Duration timeout = conf.get(ServerOptions.STOP_FLUSH_TIMEOUT);
      if (!flushManager.flushAll(timeout)) {
        LOG.warn(
            "Could not write every block to disk within {} ({}); the next start begins empty",
            timeout,
            ServerOptions.STOP_FLUSH_TIMEOUT.key());
        return false;
      }
      List<RestartManifest.Application> held = store.forRestart();
      forceToDevice(held);
      // A directory that failed is the last place to try.
      List<Path> candidates = new ArrayList<>(manifests);
      candidates.sort(
          Comparator.comparing(
              m -> {
                LocalDisk disk = disks.diskOf(m);
                return disk == null || !disk.isHealthy();
              }));
      Path written = RestartManifest.writeToFirstUsable(candidates, held);
      LOG.info(
          "Recorded {} applications in {} for the next start ({})",
          held.size(),
          written,
          ServerOptions.RECOVERY_ENABLED.key());
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "Could not record what this server holds for its next start; it begins empty: {}",
          e.toString());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * What an earlier run recorded when it stopped cleanly, from the first local dir that holds a
   * record; nothing when none does or it cannot be trusted (logged). The records are deleted once
   * this server serves (end of the constructor).
   */
  private List<RestartManifest.Application> recoverable(SluiceConf conf) {
    if (!conf.get(ServerOptions.RECOVERY_ENABLED)) {
      return List.of();
    }
    for (Path m : manifests) {
      if (!Files.exists(m, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      try {
        return RestartManifest.read(m);
      } catch (IOException | RuntimeException e) {
        LOG.warn("Cannot use the restart record {}; starting empty: {}", m, e.toString());
        return List.of();
      }
    }
    return List.of();
  }

  /**
   * Forces every recorded file to its device: flushes end in the page cache, and a record that
   * outlived a power loss must not point at data that did not.
   */
  private static void forceToDevice(List<RestartManifest.Application> held) {
    for (RestartManifest.Application app : held) {
      for (RestartManifest.Shuffle shuffle : app.shuffles()) {
        for (RestartManifest.Partition partition : shuffle.partitions()) {
          for (RestartManifest.Generation g : partition.generations()) {
            if (g.isSegment()) {
              continue; // closed by its flush: on the tier's data nodes already
            }
            for (Path file : List.of(g.dataFile(), g.indexFile())) {
              try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                channel.force(true);
              } catch (IOException e) {
                // The next start checks the file and leaves the partition out if it is short.
                LOG.warn("Could not force {} to its device: {}", file, e.toString());
              }
            }
          }
        }
      }
    }
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
