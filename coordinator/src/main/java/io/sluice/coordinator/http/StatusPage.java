package io.sluice.coordinator.http;

import io.sluice.common.protocol.message.DiskStatus;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.coordinator.app.ApplicationRegistry;
import io.sluice.coordinator.assignment.ShuffleAssigner;
import io.sluice.coordinator.exclusion.ExclusionReason;
import io.sluice.coordinator.registry.ServerCondition;
import io.sluice.coordinator.registry.ServerRecord;
import io.sluice.coordinator.registry.ServerRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The content of {@code /status}: this coordinator, every registered server with its condition and
 * load, the exclusions and the applications, as plain maps and lists for {@link
 * io.sluice.common.metrics.Json}.
 */
public final class StatusPage {
  private final String coordinatorId;
  private final ServerRegistry servers;
  private final ApplicationRegistry apps;
  private final ShuffleAssigner assigner;
  private final long startedMillis;

  public StatusPage(
      String coordinatorId,
      ServerRegistry servers,
      ApplicationRegistry apps,
      ShuffleAssigner assigner) {
    this.coordinatorId = coordinatorId;
    this.servers = servers;
    this.apps = apps;
    this.assigner = assigner;
    this.startedMillis = servers.clock().millis();
  }

  public Map<String, Object> build() {
    long now = servers.clock().millis();
    Map<String, Object> page = new LinkedHashMap<>();
    page.put("coordinator", coordinatorId);
    page.put("uptimeSeconds", (now - startedMillis) / 1000);
    page.put("heartbeatTimeoutMillis", servers.timeoutMillis());
    Map<String, Object> counts = new LinkedHashMap<>();
    counts.put("registered", servers.size());
    for (Map.Entry<ServerCondition, Integer> e : servers.countByCondition().entrySet()) {
      counts.put(e.getKey().name().toLowerCase(), e.getValue());
    }
    page.put("serverCounts", counts);
    List<ServerRecord> records = new ArrayList<>(servers.servers());
    records.sort(Comparator.comparing(ServerRecord::id));
    Map<String, Long> pending = assigner.pendingPartitions();
    List<Map<String, Object>> list = new ArrayList<>(records.size());
    for (ServerRecord record : records) {
      list.add(server(record, pending.getOrDefault(record.id(), 0L), now));
    }
    page.put("servers", list);
    Map<String, Object> excluded = new LinkedHashMap<>();
    for (Map.Entry<String, ExclusionReason> e : servers.exclusions().all().entrySet()) {
      excluded.put(e.getKey(), e.getValue().name().toLowerCase());
    }
    page.put("excluded", excluded);
    Map<String, Object> applications = new LinkedHashMap<>();
    applications.put("registered", apps.size());
    applications.put("byUser", apps.countsByUser());
    page.put("applications", applications);
    return page;
  }

  private Map<String, Object> server(ServerRecord record, long pending, long now) {
    ServerStatus s = record.status();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", record.id());
    m.put("host", s.host());
    m.put("node", record.node());
    m.put("port", s.dataPort());
    m.put("httpPort", s.httpPort());
    m.put("condition", servers.condition(record, now).name().toLowerCase());
    m.put("reportedState", s.state().name().toLowerCase());
    m.put("version", s.version());
    m.put("pushBufferUsed", s.pushBufferUsed());
    m.put("pushBufferCapacity", s.pushBufferCapacity());
    m.put("readBufferUsed", s.readBufferUsed());
    m.put("readBufferCapacity", s.readBufferCapacity());
    m.put("partitionsHeld", s.partitionsHeld());
    m.put("partitionsPending", pending);
    List<Map<String, Object>> disks = new ArrayList<>();
    for (DiskStatus d : s.disks()) {
      Map<String, Object> disk = new LinkedHashMap<>();
      disk.put("path", d.path());
      disk.put("totalBytes", d.totalBytes());
      disk.put("usedBytes", d.usedBytes());
      disk.put("healthy", d.healthy());
      disks.add(disk);
    }
    m.put("disks", disks);
    m.put("tags", s.tags());
    m.put("lastHeartbeatAgeMillis", now - record.lastHeartbeatMillis());
    return m;
  }
}
