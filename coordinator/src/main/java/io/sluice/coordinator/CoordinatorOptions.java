package io.sluice.coordinator;

import io.sluice.common.config.ConfigOption;
import io.sluice.common.config.ConfigOptionSet;
import io.sluice.common.protocol.ProtocolOptions;
import java.time.Duration;
import java.util.List;

/** Settings of a coordinator, read from {@code conf/coordinator.conf}. */
public final class CoordinatorOptions implements ConfigOptionSet {

  public static final ConfigOption<String> ID =
      ConfigOption.string("coordinator.id")
          .noDefault()
          .doc("Name of this coordinator in handshakes and logs; unset derives `host:port`.")
          .build();

  public static final ConfigOption<String> BIND_HOST =
      ConfigOption.string("coordinator.bind.host")
          .defaultValue("127.0.0.1")
          .doc(
              "Address the coordinator's port and HTTP port listen on: loopback unless set (0.0.0.0 "
                  + "for every interface).")
          .build();

  public static final ConfigOption<Integer> PORT =
      ConfigOption.integer("coordinator.port")
          .defaultValue("19997")
          .min(0)
          .max(65535)
          .doc(
              "Port that servers heart-beat to and clients ask for assignments on; 0 picks a free "
                  + "port.")
          .build();

  public static final ConfigOption<Integer> HTTP_PORT =
      ConfigOption.integer("coordinator.http.port")
          .defaultValue("19996")
          .min(-1)
          .max(65535)
          .doc(
              "Port of `/metrics` (Prometheus), `/status` (JSON) and the `/admin/` actions; 0 picks "
                  + "a free port, -1 disables HTTP.")
          .build();

  public static final ConfigOption<Duration> SERVER_HEARTBEAT_TIMEOUT =
      ConfigOption.duration("coordinator.server.heartbeat.timeout")
          .defaultValue("30s")
          .min(100)
          .doc(
              "A server that sends no heartbeat for this long gets no new work and is dropped from "
                  + "the registry. Keep it several times the servers' `server.heartbeat.interval`.")
          .build();

  public static final ConfigOption<Duration> APP_EXPIRY =
      ConfigOption.duration("coordinator.app.expiry")
          .defaultValue("120s")
          .min(100)
          .doc(
              "An application that sends no heartbeat (and asks for no assignment) for this long is "
                  + "forgotten; it must register again.")
          .build();

  public static final ConfigOption<Integer> MAX_APPS_PER_USER =
      ConfigOption.integer("coordinator.max.apps.per.user")
          .defaultValue("0")
          .min(0)
          .doc(
              "Applications one user may have registered at once; registering one more is refused "
                  + "with REFUSED. 0 means no limit. Each coordinator counts the applications registered "
                  + "with it.")
          .build();

  public static final ConfigOption<Integer> MAX_SERVERS_PER_SHUFFLE =
      ConfigOption.integer("coordinator.assignment.max.servers.per.shuffle")
          .defaultValue("100")
          .min(1)
          .max(65535)
          .doc(
              "A shuffle's partitions are spread over at most this many servers (more when it asks "
                  + "for more replicas than this), chosen by load.")
          .build();

  public static final ConfigOption<Integer> MAX_PARTITIONS =
      ConfigOption.integer("coordinator.assignment.max.partitions")
          .defaultValue("2147483647")
          .min(1)
          .doc(
              "Largest number of partitions one assignment may ask for; larger requests are refused "
                  + "with INVALID_REQUEST. The default takes every count Spark can ask for: an answer's "
                  + "size grows with its servers, not its partitions. Clients speaking protocol versions "
                  + "before 6 get one entry per partition, which must fit `"
                  + ProtocolOptions.MAX_FRAME_SIZE.key()
                  + "`.")
          .build();

  public static final ConfigOption<Integer> MAX_REPLICAS =
      ConfigOption.integer("coordinator.assignment.max.replicas")
          .defaultValue("3")
          .min(1)
          .max(16)
          .doc(
              "Largest number of copies of a partition (primary included) an assignment may ask for.")
          .build();

  public static final ConfigOption<Integer> LOAD_HALF_PARTITIONS =
      ConfigOption.integer("coordinator.assignment.load.half.partitions")
          .defaultValue("1000")
          .min(1)
          .doc(
              "How much partitions count against a server: its weight is its free push memory / "
                  + "(1 + partitions / this), where partitions are those it reports holding plus those "
                  + "this coordinator assigned to it recently. A server holding this many partitions "
                  + "weighs half as much as an idle one with the same free memory.")
          .build();

  public static final ConfigOption<Duration> PENDING_EXPIRY =
      ConfigOption.duration("coordinator.assignment.pending.expiry")
          .defaultValue("60s")
          .min(0)
          .doc(
              "Partitions this coordinator assigned count as load on their servers until the "
                  + "servers' heartbeats report them held, or for this long at most.")
          .build();

  public static final ConfigOption<Duration> REFRESH_INTERVAL =
      ConfigOption.duration("coordinator.assignment.refresh.interval")
          .defaultValue("1s")
          .min(0)
          .doc(
              "Load figures from heartbeats reach assignments within this long: the list of "
                  + "candidate servers is rebuilt at most this often for them (in the background, off the "
                  + "request path). Servers joining, leaving or changing state, and exclusions, apply at "
                  + "once. 0 rebuilds it for every new figure.")
          .build();

  public static final ConfigOption<String> EXCLUDE_FILE =
      ConfigOption.string("coordinator.exclude.file")
          .noDefault()
          .doc(
              "File of server ids (one per line, `#` starts a comment) that get no new work. Re-read "
                  + "when it changes; a missing file excludes nothing.")
          .build();

  public static final ConfigOption<Duration> EXCLUDE_FILE_CHECK_INTERVAL =
      ConfigOption.duration("coordinator.exclude.file.check.interval")
          .defaultValue("10s")
          .min(100)
          .doc("How often the coordinator checks `" + EXCLUDE_FILE.key() + "` for changes.")
          .build();

  public static final ConfigOption<String> ADMIN_TOKEN_FILE =
      ConfigOption.string("coordinator.admin.token.file")
          .noDefault()
          .doc(
              "File holding the token (at least 32 characters, not readable by every user) that "
                  + "admin calls on the HTTP port must send as `Authorization: Bearer <token>`. When "
                  + "unset, admin calls are refused if `auth.enabled` is true or "
                  + "`coordinator.bind.host` is not a loopback address, and open to anyone who "
                  + "reaches the loopback HTTP port otherwise.")
          .build();

  private static final List<ConfigOption<?>> ALL =
      List.of(
          ID,
          BIND_HOST,
          PORT,
          HTTP_PORT,
          SERVER_HEARTBEAT_TIMEOUT,
          APP_EXPIRY,
          MAX_APPS_PER_USER,
          MAX_SERVERS_PER_SHUFFLE,
          MAX_PARTITIONS,
          MAX_REPLICAS,
          LOAD_HALF_PARTITIONS,
          PENDING_EXPIRY,
          REFRESH_INTERVAL,
          EXCLUDE_FILE,
          EXCLUDE_FILE_CHECK_INTERVAL,
          ADMIN_TOKEN_FILE);

  @Override
  public String title() {
    return "Coordinator (conf/coordinator.conf)";
  }

  @Override
  public String description() {
    return "Read by `bin/start-coordinator.sh`. The file may also set the transport keys. Run two or "
        + "more coordinators with the same settings for availability; see `docs/coordinator.md`.";
  }

  @Override
  public List<ConfigOption<?>> options() {
    return ALL;
  }
}
