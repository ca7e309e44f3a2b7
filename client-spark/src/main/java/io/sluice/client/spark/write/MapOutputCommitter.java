package io.sluice.client.spark.write;

import io.sluice.client.spark.Retries;
import io.sluice.client.spark.ShuffleAssignment;
import io.sluice.client.spark.SluiceClientContext;
import io.sluice.client.spark.SluiceClientOptions;
import io.sluice.common.block.BlockIdLayout;
import io.sluice.common.protocol.message.CommitMapOutputRequest;
import io.sluice.common.protocol.message.PartitionBlockIds;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.TransportClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Tells each server which blocks a map attempt wrote to its partitions, once all were acknowledged.
 * Readers count only blocks of committed attempts that Spark reports as successful.
 */
final class MapOutputCommitter {
  private MapOutputCommitter() {}

  static void commit(SluiceClientContext client, ShuffleAssignment assignment, String appId,
      int shuffleId, int mapIndex, long taskAttemptId, int[] blockCounts)
      throws IOException, InterruptedException {
    BlockIdLayout layout = client.layout();
    List<List<PartitionBlockIds>> perServer = new ArrayList<>();
    for (int s = 0; s < assignment.serverCount(); s++) {
      perServer.add(new ArrayList<>());
    }
    for (int p = 0; p < blockCounts.length; p++) {
      if (blockCounts[p] == 0) {
        continue;
      }
      long[] ids = new long[blockCounts[p]];
      for (int seq = 0; seq < ids.length; seq++) {
        ids[seq] = layout.blockId(seq, p, taskAttemptId);
      }
      perServer.get(assignment.serverOf(p)).add(new PartitionBlockIds(p, ids));
    }
    List<CompletableFuture<StatusResponse>> commits = new ArrayList<>();
    for (int s = 0; s < perServer.size(); s++) {
      List<PartitionBlockIds> partitions = perServer.get(s);
      if (partitions.isEmpty()) {
        continue;
      }
      int server = s;
      commits.add(Retries.withRetries(() -> {
        try {
          return client.clients().getClient(assignment.host(server), assignment.port(server))
              .request(new CommitMapOutputRequest(TransportClient.nextRequestId(), appId,
                  shuffleId, mapIndex, taskAttemptId, partitions), StatusResponse.class);
        } catch (IOException | InterruptedException e) {
          return CompletableFuture.failedFuture(e);
        }
      }, client.conf().get(SluiceClientOptions.PUSH_RETRIES),
          client.conf().get(SluiceClientOptions.RETRY_WAIT), client.scheduler()));
    }
    for (CompletableFuture<StatusResponse> c : commits) {
      try {
        c.get();
      } catch (ExecutionException e) {
        throw new IOException("commit of map " + mapIndex + " (attempt " + taskAttemptId
            + ") of shuffle " + shuffleId + " failed: " + e.getCause().getMessage(), e.getCause());
      }
    }
  }
}
