package io.sluice.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.AssignmentResponse;
import io.sluice.common.protocol.message.AssignmentRunsResponse;
import io.sluice.common.protocol.message.AuthChallengeResponse;
import io.sluice.common.protocol.message.AuthProofRequest;
import io.sluice.common.protocol.message.AuthProofResponse;
import io.sluice.common.protocol.message.AuthRequest;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.CommitMapOutputRequest;
import io.sluice.common.protocol.message.DiskStatus;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.FetchIndexPageRequest;
import io.sluice.common.protocol.message.FetchIndexPageResponse;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchIndexResponse;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.FetchMemoryDataResponse;
import io.sluice.common.protocol.message.GetAssignmentRequest;
import io.sluice.common.protocol.message.GetLocationsRequest;
import io.sluice.common.protocol.message.GetShuffleResultRequest;
import io.sluice.common.protocol.message.GetShuffleResultResponse;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.protocol.message.HandshakeResponse;
import io.sluice.common.protocol.message.LocationsResponse;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.RegisterApplicationRequest;
import io.sluice.common.protocol.message.RegisterShuffleRequest;
import io.sluice.common.protocol.message.RelocateRequest;
import io.sluice.common.protocol.message.ReplicaChain;
import io.sluice.common.protocol.message.ServerHeartbeatOnNodeRequest;
import io.sluice.common.protocol.message.ServerHeartbeatRequest;
import io.sluice.common.protocol.message.ServerState;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.protocol.message.UnregisterApplicationRequest;
import io.sluice.common.protocol.message.UnregisterShuffleRequest;
import io.sluice.common.shuffle.IndexEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Sample messages of every type, with non-trivial field values (non-ASCII strings, extreme numbers,
 * empty and non-empty collections, error forms). Each call builds fresh instances, because writing
 * a message with a body hands its body to the channel. Bodies are pooled buffers of random bytes.
 */
final class MessageFixtures {
  static final String APP = "application_1718000000000_0042";
  static final ServerAddress SERVER_A = new ServerAddress("server-a", "10.0.0.1", 9097);
  static final ServerAddress SERVER_B = new ServerAddress("server-ß", "host-b.example.com", 65535);
  static final ServerAddress SERVER_C = new ServerAddress("", "", 0);

  private MessageFixtures() {}

  static List<Message> all(Random random) {
    List<Message> messages = new ArrayList<>();
    messages.add(
        new HandshakeRequest(
            1, ProtocolVersion.MIN_SUPPORTED, ProtocolVersion.CURRENT, "executor-7 on worker-3"));
    messages.add(HandshakeResponse.ok(2, ProtocolVersion.CURRENT, "server-a", 64 << 20));
    messages.add(HandshakeResponse.ok(2, 4, "server-of-protocol-4", 0));
    messages.add(new HandshakeRequest(3, 7, 9, ""));
    messages.add(
        StatusResponse.error(
            Long.MIN_VALUE,
            StatusCode.VERSION_MISMATCH,
            "client speaks 7..9, server speaks 2 \u2603"));
    messages.add(StatusResponse.ok(4));
    messages.add(StatusResponse.error(Long.MAX_VALUE, StatusCode.NO_BUFFER, "push memory full"));
    messages.add(new RegisterApplicationRequest(5, APP, "ålice"));
    messages.add(new AppHeartbeatRequest(6, APP));
    messages.add(new UnregisterApplicationRequest(7, ""));
    messages.add(new RegisterShuffleRequest(8, APP, 3, 200));
    messages.add(new RegisterShuffleRequest(9, APP, Integer.MAX_VALUE, 0));
    messages.add(new UnregisterShuffleRequest(10, APP, 3));
    messages.add(pushData(random, 14, 3));
    messages.add(pushData(random, 15, 0));
    messages.add(
        new CommitMapOutputRequest(
            16,
            APP,
            3,
            17,
            9_000_000_001L,
            new int[] {0, 5, 199},
            new int[] {3, 1, Integer.MAX_VALUE}));
    messages.add(new CommitMapOutputRequest(17, APP, 3, 0, 0, new int[0], new int[0]));
    messages.add(new GetShuffleResultRequest(18, APP, 3, 7, new long[] {100, 101, 205}));
    messages.add(new GetShuffleResultResponse(19, new int[] {4, -1, 1 << 30}));
    messages.add(new GetShuffleResultResponse(20, new int[0]));
    messages.add(new FetchIndexRequest(21, APP, 3, 7));
    messages.add(FetchIndexResponse.ok(22, 1L << 40, randomBody(random, 40 * 12)));
    messages.add(new FetchIndexPageRequest(22, APP, 3, 7, 65_536, 1 << 20));
    messages.add(
        FetchIndexPageResponse.ok(
            22, 1L << 40, 65_538, true, randomBody(random, 2 * IndexEntry.SIZE)));
    messages.add(FetchIndexPageResponse.ok(23, 0, 0, false, randomBody(random, 0)));
    messages.add(new FetchDataRequest(24, APP, 3, 7, 1L << 33, 8 << 20));
    messages.add(FetchDataResponse.ok(25, randomBody(random, 5000)));
    messages.add(
        new FetchMemoryDataRequest(
            27, APP, 3, 7, FetchMemoryDataRequest.FROM_START, 1 << 20, new long[0]));
    messages.add(
        new FetchMemoryDataRequest(
            23, APP, 3, 7, 99, 4096, new long[] {Long.MIN_VALUE, 5, Long.MAX_VALUE}));
    messages.add(fetchMemoryData(random, 28));
    messages.add(
        new ServerHeartbeatRequest(
            30,
            new ServerStatus(
                "server-a",
                "10.0.0.1",
                9097,
                9098,
                ServerState.DECOMMISSIONING,
                "0.1.0",
                1L << 30,
                4L << 30,
                12345,
                1L << 30,
                812,
                List.of(
                    new DiskStatus("/mnt/ssd0", 1L << 40, 1L << 39, true),
                    new DiskStatus("/mnt/ssd1/sluice ü", 1L << 40, 0, false)),
                List.of("ssd", "rack-1"),
                1_718_000_000_123L)));
    messages.add(
        new ServerHeartbeatRequest(
            31,
            new ServerStatus(
                "s", "h", 0, 0, ServerState.ACTIVE, "", 0, 0, 0, 0, 0, List.of(), List.of(), 0)));
    messages.add(
        new ServerHeartbeatOnNodeRequest(
            35,
            new ServerStatus(
                "sluice-server-0",
                "sluice-server-0.sluice-server.sluice.svc",
                19999,
                19998,
                ServerState.ACTIVE,
                "0.1.0",
                0,
                4L << 30,
                0,
                1L << 30,
                0,
                List.of(new DiskStatus("/data/sluice", 1L << 40, 0, true)),
                List.of(),
                1_718_000_000_456L),
            "worker-node-7"));
    messages.add(new GetAssignmentRequest(32, APP, 3, 200, 2, List.of("ssd"), List.of()));
    messages.add(new GetAssignmentRequest(33, APP, 4, 1, 1, List.of(), List.of("server-b", "")));
    messages.add(
        AssignmentResponse.ok(
            34,
            List.of(SERVER_A, SERVER_B, SERVER_C),
            PartitionChains.ofChains(new int[][] {{0, 1}, {1, 2}, {2, 0}, {0, 2}, {1, 0}})));
    messages.add(
        AssignmentResponse.ok(141, List.of(SERVER_B), PartitionChains.ofChains(new int[][] {{0}})));
    messages.add(
        AssignmentRunsResponse.ok(
            142,
            List.of(SERVER_A, SERVER_B, SERVER_C),
            PartitionChains.ofColumns(
                Integer.MAX_VALUE,
                new int[][] {{1 << 30, Integer.MAX_VALUE}, {7, Integer.MAX_VALUE}},
                new int[][] {{0, 1}, {2, 0}})));
    messages.add(
        new RelocateRequest(
            35, APP, 3, new int[] {0, 7}, new int[] {0, 2}, "server-a", "connection refused"));
    messages.add(new RelocateRequest(36, APP, 3, new int[0], new int[0], "", ""));
    messages.add(new GetLocationsRequest(37, APP, 3, 0, Integer.MAX_VALUE));
    messages.add(
        new LocationsResponse(
            38,
            List.of(
                new LocationsResponse.Entry(
                    7, new PartitionLocation(0, List.of(SERVER_A, SERVER_B))),
                new LocationsResponse.Entry(
                    7, new PartitionLocation(1, List.of(SERVER_C, SERVER_A))),
                new LocationsResponse.Entry(
                    9, new PartitionLocation(Integer.MAX_VALUE, List.of(SERVER_B))))));
    messages.add(new LocationsResponse(39, List.of()));
    messages.add(new AuthRequest(40, AuthRole.APPLICATION, APP, bytes(random, 16)));
    messages.add(new AuthRequest(41, AuthRole.CLUSTER, "", new byte[16]));
    messages.add(new AuthChallengeResponse(42, bytes(random, 16)));
    messages.add(new AuthProofRequest(43, bytes(random, 32), bytes(random, 60)));
    messages.add(new AuthProofRequest(44, bytes(random, 32), new byte[0]));
    messages.add(new AuthProofResponse(45, bytes(random, 32)));
    messages.add(StatusResponse.error(46, StatusCode.ACCESS_DENIED, "another application"));
    return messages;
  }

  private static byte[] bytes(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  static PushDataRequest pushData(Random random, long requestId, int blockCount) {
    List<BlockDescriptor> blocks = new ArrayList<>();
    int total = 0;
    for (int i = 0; i < blockCount; i++) {
      int length = 1 + random.nextInt(3000);
      blocks.add(new BlockDescriptor(i % 2, 77L, 1000 + i, length, length * 3, random.nextInt()));
      total += length;
    }
    List<ReplicaChain> chains =
        blockCount == 0
            ? List.of()
            : List.of(new ReplicaChain(0, List.of(SERVER_B)), new ReplicaChain(1, List.of()));
    return new PushDataRequest(requestId, APP, 3, chains, blocks, randomBody(random, total));
  }

  static FetchMemoryDataResponse fetchMemoryData(Random random, long requestId) {
    List<BlockDescriptor> blocks =
        List.of(
            new BlockDescriptor(7, 6, 5, 100, 250, 0xCAFE),
            new BlockDescriptor(7, 6, 9, 0, 0, 0),
            new BlockDescriptor(7, Long.MIN_VALUE, Integer.MAX_VALUE, 2048, 9000, -1));
    return FetchMemoryDataResponse.ok(requestId, true, 41L, blocks, randomBody(random, 2148));
  }

  static ManagedBuffer randomBody(Random random, int size) {
    byte[] bytes = new byte[size];
    random.nextBytes(bytes);
    ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(size);
    buf.writeBytes(bytes);
    return new NettyManagedBuffer(buf);
  }
}
