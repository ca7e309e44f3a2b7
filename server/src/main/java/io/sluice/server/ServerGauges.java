package io.sluice.server;

import io.netty.util.internal.PlatformDependent;
import io.sluice.common.transport.TransportOptions;
import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.memory.ReadBudget;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.shuffle.ShuffleStore;
import io.sluice.server.storage.DiskManager;
import io.sluice.server.storage.HdfsLogin;
import io.sluice.server.storage.HdfsTier;

/**
 * The gauges a server exports on {@code /metrics} about its memory, connections, partitions, disks
 * and HDFS tier (docs/metrics.md), each read from its part when scraped. Counters and histograms
 * live where they are counted, in {@link ServerMetrics}.
 */
final class ServerGauges {
  private ServerGauges() {}

  static void register(ShuffleServer server) {
    ServerMetrics metrics = server.metrics();
    HdfsTier hdfs = server.hdfs();
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
    PushBufferPool pushPool = server.pushPool();
    metrics.gauge(
        "sluice_server_push_memory_held_bytes",
        "Direct memory held by the push pool (chunks and slabs)",
        pushPool::heldBytes);
    metrics.gauge(
        "sluice_server_push_memory_allocated_bytes",
        "Bytes of the blocks held in the push pool",
        pushPool::allocatedBytes);
    metrics.gauge(
        "sluice_server_push_memory_capacity_bytes",
        ServerOptions.BUFFER_CAPACITY.key(),
        pushPool::capacity);
    ReadBudget readBudget = server.readBudget();
    metrics.gauge(
        "sluice_server_read_memory_used_bytes",
        "Read memory in use: data being served from memory and HDFS, direct reads' buffers",
        readBudget::usedBytes);
    metrics.gauge(
        "sluice_server_read_memory_capacity_bytes",
        ServerOptions.READ_BUFFER_CAPACITY.key(),
        readBudget::capacity);
    metrics.gauge(
        "sluice_server_network_memory_bytes",
        "Direct memory of the network pool (receive buffers, response headers)",
        () -> server.networkAllocator().metric().usedDirectMemory());
    metrics.gauge(
        "sluice_server_netty_direct_memory_bytes",
        "Direct memory Netty holds in this JVM, all pools",
        PlatformDependent::usedDirectMemory);
    metrics.gauge(
        "sluice_server_receive_reserved_bytes",
        "Receive memory reserved by frames being received",
        () -> server.receiveBudget().reservedBytes());
    metrics.gauge(
        "sluice_server_receive_capacity_bytes",
        TransportOptions.RECEIVE_MEMORY.key(),
        () -> server.receiveBudget().capacity());
    metrics.gauge(
        "sluice_server_receive_waiting_connections",
        "Connections not reading until their frame fits the receive memory",
        () -> server.receiveBudget().queuedCount());
    metrics.gauge("sluice_server_connections", "Connections open", server::connectionCount);
    ShuffleStore store = server.store();
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
    DiskManager disks = server.disks();
    metrics.gauge(
        "sluice_server_healthy_disks",
        "Local directories taking data",
        () -> disks.disks().stream().filter(d -> d.isHealthy()).count());
    metrics.gauge(
        "sluice_server_disk_used_bytes",
        "Bytes used on all local directories' disks",
        () -> disks.disks().stream().mapToLong(d -> d.totalBytes() - d.usableBytes()).sum());
  }
}
