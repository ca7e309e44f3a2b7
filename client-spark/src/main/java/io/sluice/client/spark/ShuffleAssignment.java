package io.sluice.client.spark;

import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.message.AssignmentResponse;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/** Which server holds each partition of a shuffle; travels to executors inside the handle. */
public final class ShuffleAssignment implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String[] hosts;
  private final int[] ports;
  private final String[] serverIds;
  private final int[] primaryOf;

  ShuffleAssignment(List<ServerAddress> servers, int[] primaryOf) {
    this.hosts = new String[servers.size()];
    this.ports = new int[servers.size()];
    this.serverIds = new String[servers.size()];
    for (int i = 0; i < servers.size(); i++) {
      hosts[i] = servers.get(i).host();
      ports[i] = servers.get(i).port();
      serverIds[i] = servers.get(i).serverId();
    }
    this.primaryOf = primaryOf;
  }

  static ShuffleAssignment of(AssignmentResponse response) {
    int[] primary = new int[response.partitionCount()];
    for (int p = 0; p < primary.length; p++) {
      primary[p] = response.serverIndexes(p)[0];
    }
    return new ShuffleAssignment(response.servers(), primary);
  }

  public int numPartitions() {
    return primaryOf.length;
  }

  public int serverCount() {
    return hosts.length;
  }

  /** Index of the server holding {@code partition}. */
  public int serverOf(int partition) {
    return primaryOf[partition];
  }

  public String host(int server) {
    return hosts[server];
  }

  public int port(int server) {
    return ports[server];
  }

  public String serverId(int server) {
    return serverIds[server];
  }

  /** Partitions held by {@code server}. */
  public int[] partitionsOf(int server) {
    List<Integer> list = new ArrayList<>();
    for (int p = 0; p < primaryOf.length; p++) {
      if (primaryOf[p] == server) {
        list.add(p);
      }
    }
    return list.stream().mapToInt(Integer::intValue).toArray();
  }

  public String describe(int server) {
    return serverIds[server] + " (" + hosts[server] + ":" + ports[server] + ")";
  }
}
