package io.sluice.server;

import io.sluice.common.protocol.message.DiskStatus;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.server.storage.HdfsTier;
import io.sluice.server.storage.LocalDisk;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The server's state: as a heartbeat for coordinators, and as the {@code /status} JSON page. */
final class ServerStatusReport {
  /** The Sluice release, from the jar's manifest when packaged. */
  static final String VERSION = versionOf(ServerStatusReport.class);

  private ServerStatusReport() {}

  static ServerStatus heartbeat(ShuffleServer server, List<String> tags) {
    List<DiskStatus> disks = new ArrayList<>();
    for (LocalDisk d : server.disks().disks()) {
      disks.add(
          new DiskStatus(
              d.root().toString(),
              d.totalBytes(),
              d.totalBytes() - d.usableBytes(),
              d.isHealthy()));
    }
    HdfsTier hdfs = server.hdfs();
    if (hdfs != null) {
      // One more place that takes data; its size is the cluster's business, not reported.
      disks.add(new DiskStatus(hdfs.root().toString(), 0, 0, hdfs.isWritable()));
    }
    return new ServerStatus(
        server.serverId(),
        server.advertisedHost(),
        server.port(),
        Math.max(0, server.httpPort()),
        server.state(),
        VERSION,
        server.pushPool().usedBytes(),
        server.pushPool().capacity(),
        server.readBudget().usedBytes(),
        server.readBudget().capacity(),
        server.store().partitionCount(),
        disks,
        tags,
        System.currentTimeMillis());
  }

  static Map<String, Object> of(ShuffleServer server) {
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("serverId", server.serverId());
    status.put("host", server.advertisedHost());
    status.put("port", server.port());
    status.put("httpPort", server.httpPort());
    status.put("state", server.state());
    status.put("version", VERSION);
    Map<String, Object> memory = new LinkedHashMap<>();
    memory.put("pushHeldBytes", server.pushPool().heldBytes());
    memory.put("pushAllocatedBytes", server.pushPool().allocatedBytes());
    memory.put("pushCapacityBytes", server.pushPool().capacity());
    memory.put("readUsedBytes", server.readBudget().usedBytes());
    memory.put("readCapacityBytes", server.readBudget().capacity());
    memory.put("networkBytes", server.networkAllocator().metric().usedDirectMemory());
    status.put("memory", memory);
    status.put("applications", server.store().applications().size());
    status.put("partitions", server.store().partitionCount());
    List<Map<String, Object>> disks = new ArrayList<>();
    for (LocalDisk d : server.disks().disks()) {
      Map<String, Object> disk = new LinkedHashMap<>();
      disk.put("path", d.root().toString());
      disk.put("healthy", d.isHealthy());
      disk.put("reason", d.unhealthyReason());
      disk.put("totalBytes", d.totalBytes());
      disk.put("usableBytes", d.usableBytes());
      disk.put("pendingFlushes", d.pendingFlushes());
      disks.add(disk);
    }
    status.put("disks", disks);
    HdfsTier hdfs = server.hdfs();
    if (hdfs != null) {
      Map<String, Object> tier = new LinkedHashMap<>();
      tier.put("path", hdfs.root().toString());
      tier.put("writable", hdfs.isWritable());
      tier.put("reason", hdfs.unwritableReason());
      status.put("hdfs", tier);
    }
    return status;
  }

  private static String versionOf(Class<?> c) {
    String v = c.getPackage() == null ? null : c.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }
}
