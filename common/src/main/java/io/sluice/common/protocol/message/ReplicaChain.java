package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.WireEncoding;
import java.util.List;

/**
 * Where the receiver of a {@link PushDataRequest} forwards a partition's blocks (chain
 * replication): {@code int32 partitionId | uint16 count | ServerAddress x count}, in chain order. A
 * writer names only partitions with replicas; a server forwarding a partition names it with an
 * empty list when the receiver holds the chain's last copy.
 */
public record ReplicaChain(int partitionId, List<ServerAddress> replicas) {
  /** Encoded size of a chain with no replicas. */
  public static final int MIN_ENCODED_LENGTH = 4 + 2;

  public ReplicaChain {
    replicas = List.copyOf(replicas);
    WireEncoding.checkShortCount("replicas", replicas.size());
  }

  public int encodedLength() {
    int length = MIN_ENCODED_LENGTH;
    for (ServerAddress replica : replicas) {
      length += replica.encodedLength();
    }
    return length;
  }

  public void encode(ByteBuf out) {
    out.writeInt(partitionId);
    out.writeShort(replicas.size());
    for (ServerAddress replica : replicas) {
      replica.encode(out);
    }
  }

  public static ReplicaChain decode(ByteBuf in) {
    int partitionId = in.readInt();
    int count = WireEncoding.readShortCount(in, ServerAddress.MIN_ENCODED_LENGTH, "replica");
    ServerAddress[] replicas = new ServerAddress[count];
    for (int i = 0; i < count; i++) {
      replicas[i] = ServerAddress.decode(in);
    }
    return new ReplicaChain(partitionId, List.of(replicas));
  }
}
