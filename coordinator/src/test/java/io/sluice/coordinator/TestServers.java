package io.sluice.coordinator;

import io.sluice.common.protocol.message.DiskStatus;
import io.sluice.common.protocol.message.ServerState;
import io.sluice.common.protocol.message.ServerStatus;
import java.util.List;

/** Heartbeat contents for tests: a healthy ACTIVE server unless told otherwise. */
public final class TestServers {
  public static final long GIB = 1L << 30;
  public static final DiskStatus HEALTHY_DISK = new DiskStatus("/data1", 100 * GIB, 10 * GIB, true);
  public static final DiskStatus FAILED_DISK = new DiskStatus("/data2", 100 * GIB, 10 * GIB, false);

  private TestServers() {}

  /** A server {@code id} on {@code host} with {@code freeBytes} of its 16 GiB push memory free. */
  public static ServerStatus status(String id, String host, long freeBytes) {
    return builder(id, host).free(freeBytes).build();
  }

  public static Builder builder(String id, String host) {
    return new Builder(id, host);
  }

  /** Fields of a {@link ServerStatus}, each with a sensible default. */
  public static final class Builder {
    private final String id;
    private final String host;
    private int port = 19999;
    private int httpPort = 19998;
    private ServerState state = ServerState.ACTIVE;
    private long capacity = 16 * GIB;
    private long used = 0;
    private long readCapacity = GIB;
    private long readUsed = 0;
    private int partitionsHeld = 0;
    private List<DiskStatus> disks = List.of(HEALTHY_DISK);
    private List<String> tags = List.of();

    private Builder(String id, String host) {
      this.id = id;
      this.host = host;
    }

    public Builder port(int port) {
      this.port = port;
      return this;
    }

    public Builder httpPort(int httpPort) {
      this.httpPort = httpPort;
      return this;
    }

    public Builder state(ServerState state) {
      this.state = state;
      return this;
    }

    public Builder capacity(long capacity) {
      this.capacity = capacity;
      return this;
    }

    public Builder used(long used) {
      this.used = used;
      return this;
    }

    /** Sets used memory so that {@code freeBytes} remain. */
    public Builder free(long freeBytes) {
      this.used = capacity - freeBytes;
      return this;
    }

    public Builder readBuffer(long used, long capacity) {
      this.readUsed = used;
      this.readCapacity = capacity;
      return this;
    }

    public Builder partitionsHeld(int partitions) {
      this.partitionsHeld = partitions;
      return this;
    }

    public Builder disks(DiskStatus... disks) {
      this.disks = List.of(disks);
      return this;
    }

    public Builder tags(String... tags) {
      this.tags = List.of(tags);
      return this;
    }

    public ServerStatus build() {
      return new ServerStatus(
          id,
          host,
          port,
          httpPort,
          state,
          "0.1.0-test",
          used,
          capacity,
          readUsed,
          readCapacity,
          partitionsHeld,
          disks,
          tags,
          System.currentTimeMillis());
    }
  }
}
