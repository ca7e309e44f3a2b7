package io.sluice.coordinator.admin;

import io.sluice.common.text.ByteSizes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The admin command's tables, from the coordinator's {@code /status}: columns padded to fit. */
final class StatusTables {
  private StatusTables() {}

  static String servers(List<Object> servers) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(
        List.of(
            "SERVER",
            "ADDRESS",
            "CONDITION",
            "STATE",
            "PUSH MEMORY",
            "READ MEMORY",
            "PARTITIONS",
            "PENDING",
            "HEARTBEAT"));
    for (Object o : servers) {
      Map<String, Object> s = AdminCommand.map(o);
      rows.add(
          List.of(
              text(s.get("id")),
              s.get("host") + ":" + s.get("port"),
              text(s.get("condition")),
              text(s.get("reportedState")),
              bytes(s.get("pushBufferUsed")) + " / " + bytes(s.get("pushBufferCapacity")),
              bytes(s.get("readBufferUsed")) + " / " + bytes(s.get("readBufferCapacity")),
              text(s.get("partitionsHeld")),
              text(s.get("partitionsPending")),
              text(s.get("lastHeartbeatAgeMillis")) + " ms ago"));
    }
    return table(rows) + servers.size() + (servers.size() == 1 ? " server\n" : " servers\n");
  }

  static String applications(Map<String, Object> applications) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("USER", "APPLICATIONS"));
    AdminCommand.map(applications.get("byUser"))
        .forEach((user, count) -> rows.add(List.of(user, text(count))));
    return table(rows) + text(applications.get("registered")) + " applications registered\n";
  }

  static String shuffles(List<Object> applications) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(
        List.of(
            "APPLICATION",
            "USER",
            "SHUFFLE",
            "PARTITIONS",
            "COPIES",
            "SERVERS",
            "RELOCATIONS",
            "ASSIGNED"));
    int count = 0;
    for (Object o : applications) {
      Map<String, Object> app = AdminCommand.map(o);
      for (Object so : AdminCommand.list(app.get("shuffles"))) {
        Map<String, Object> s = AdminCommand.map(so);
        rows.add(
            List.of(
                text(app.get("id")),
                text(app.get("user")),
                text(s.get("shuffleId")),
                text(s.get("partitions")),
                text(s.get("copies")),
                text(AdminCommand.list(s.get("servers")).size()),
                text(s.get("relocations")),
                text(s.get("assignedAgeMillis")) + " ms ago"));
        count++;
      }
    }
    return table(rows)
        + count
        + (count == 1 ? " shuffle" : " shuffles")
        + " of "
        + applications.size()
        + (applications.size() == 1 ? " application\n" : " applications\n");
  }

  static String draining(List<Object> servers) {
    if (servers.isEmpty()) {
      return "No server is decommissioning.\n";
    }
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("SERVER", "STATE", "PARTITIONS HELD", "PUSH MEMORY USED", "HEARTBEAT"));
    for (Object o : servers) {
      Map<String, Object> s = AdminCommand.map(o);
      rows.add(
          List.of(
              text(s.get("id")),
              text(s.get("reportedState")),
              text(s.get("partitionsHeld")),
              bytes(s.get("pushBufferUsed")),
              text(s.get("lastHeartbeatAgeMillis")) + " ms ago"));
    }
    return table(rows);
  }

  private static String bytes(Object value) {
    return ByteSizes.binary(value instanceof Number n ? n.longValue() : 0);
  }

  private static String text(Object value) {
    return value == null ? "-" : value.toString();
  }

  private static String table(List<List<String>> rows) {
    int[] widths = new int[rows.get(0).size()];
    for (List<String> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        line.append(row.get(i)).append(" ".repeat(widths[i] - row.get(i).length() + 2));
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }
}
