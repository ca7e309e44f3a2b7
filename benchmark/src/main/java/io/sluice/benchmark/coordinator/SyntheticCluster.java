package io.sluice.benchmark.coordinator;

import io.sluice.common.protocol.message.DiskStatus;
import io.sluice.common.protocol.message.ServerState;
import io.sluice.common.protocol.message.ServerStatus;
import java.util.List;
import java.util.Random;

/**
 * Heartbeats of a made-up fleet: {@code servers} servers, {@code serversPerHost} to a host, 16 GiB
 * of push memory each with a random part in use, a few hundred partitions held and two disks. Each
 * round moves every server's figures a little, as real heartbeats would.
 */
final class SyntheticCluster {
  private static final long GIB = 1L << 30;
  private static final List<DiskStatus> DISKS =
      List.of(
          new DiskStatus("/data1", 2000 * GIB, 500 * GIB, true),
          new DiskStatus("/data2", 2000 * GIB, 700 * GIB, true));

  private final int servers;
  private final int serversPerHost;
  private final long[] used;
  private final int[] held;
  private final Random random = new Random(20_26);

  SyntheticCluster(int servers, int serversPerHost) {
    this.servers = servers;
    this.serversPerHost = serversPerHost;
    this.used = new long[servers];
    this.held = new int[servers];
    for (int i = 0; i < servers; i++) {
      used[i] = (long) (random.nextDouble() * 12 * GIB);
      held[i] = random.nextInt(500);
    }
  }

  int size() {
    return servers;
  }

  /** Server {@code i}'s next heartbeat. */
  ServerStatus next(int i) {
    used[i] = Math.max(0, Math.min(15 * GIB, used[i] + (random.nextInt(201) - 100) * (GIB / 100)));
    held[i] = Math.max(0, held[i] + random.nextInt(11) - 5);
    return new ServerStatus(
        id(i),
        "host-" + (i / serversPerHost) + ".bench",
        19999,
        19998,
        ServerState.ACTIVE,
        "bench",
        used[i],
        16 * GIB,
        0,
        GIB,
        held[i],
        DISKS,
        List.of(),
        System.currentTimeMillis());
  }

  static String id(int i) {
    return String.format("server-%05d", i);
  }
}
