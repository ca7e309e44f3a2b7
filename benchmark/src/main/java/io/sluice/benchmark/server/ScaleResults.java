package io.sluice.benchmark.server;

import io.sluice.benchmark.LatencyStats;
import io.sluice.benchmark.MetricsPoller;
import java.util.List;

/** Everything one invocation of {@link ScaleBenchmark} measured; a part not run stays null. */
final class ScaleResults {
  Connections connections;
  Commits commits;
  Unregister unregister;

  /**
   * The server's memory over a part, from its {@code /metrics} sampled throughout.
   *
   * @param peaks direct memory, pools, heap and RSS at their highest
   * @param heapMax the heap's limit ({@code -Xmx}) as the JVM reports it
   * @param connections, receiveReserved, receiveWaiting the highest values of {@code
   *     sluice_server_connections}, {@code sluice_server_receive_reserved_bytes} and {@code
   *     sluice_server_receive_waiting_connections}
   */
  record Memory(
      RunResult.Peaks peaks,
      double heapMax,
      double connections,
      double receiveReserved,
      double receiveWaiting) {

    static Memory of(List<MetricsPoller.Sample> samples) {
      double heapMax = 0;
      double connections = 0;
      double reserved = 0;
      double waiting = 0;
      for (MetricsPoller.Sample s : samples) {
        heapMax = Math.max(heapMax, s.get(MetricsPoller.HEAP_MAX));
        connections = Math.max(connections, s.get(MetricsPoller.CONNECTIONS));
        reserved = Math.max(reserved, s.get(MetricsPoller.RECEIVE_RESERVED));
        waiting = Math.max(waiting, s.get(MetricsPoller.RECEIVE_WAITING));
      }
      return new Memory(RunResult.Peaks.of(samples), heapMax, connections, reserved, waiting);
    }
  }

  /**
   * The 1,000-connection part.
   *
   * @param networkAllowance the network pool's bound, {@code ServerJvmOptions.networkAllowance}
   * @param pusherTimes each well-behaved client's time from the start to its commit's answer
   * @param readSeconds time to read everything back
   * @param noBuffer pushes the server refused with NO_BUFFER (each sent again)
   * @param serverCpuSeconds the server's CPU over the push and the read
   * @param machineCores the whole machine's busy cores over the same span
   * @param reservedAfterStallers {@code sluice_server_receive_reserved_bytes} once the stallers
   *     were closed (or the wait for that gave up), and {@code connectionsAfterStallers} the
   *     connections open then
   * @param serverAlive whether the server was still running at the end
   */
  record Connections(
      ServerBenchResults.ServerSetup server,
      long networkAllowance,
      Memory memory,
      int pushers,
      long ackedBytes,
      long ackedBlocks,
      RunResult.ReadSummary read,
      double pushSeconds,
      LatencyStats pusherTimes,
      double readSeconds,
      long noBuffer,
      HostileConnections.Outcome hostile,
      double serverCpuSeconds,
      double machineCores,
      double reservedAfterStallers,
      double connectionsAfterStallers,
      boolean serverAlive) {

    boolean intact() {
      return read.problems() == 0 && read.blocks() == ackedBlocks && read.bytes() == ackedBytes;
    }

    boolean directHeld() {
      return memory.peaks().directTotal() <= server.directMemoryLimit();
    }

    boolean pushPoolHeld() {
      return memory.peaks().pushHeld() <= server.bufferCapacity();
    }

    boolean readMemoryHeld() {
      return memory.peaks().readUsed() <= server.readCapacity();
    }

    boolean networkHeld() {
      return memory.peaks().network() <= networkAllowance;
    }

    boolean heapHeld() {
      return memory.peaks().heap() <= memory.heapMax();
    }
  }

  /**
   * The commit-scale part.
   *
   * @param heapBefore the server's heap after a full collection, before the first commit
   * @param heapAfter the same after the last commit
   * @param countsChecked partitions whose committed counts were read back and compared
   * @param countsProblem the first mismatch, or null
   * @param unregisterMillis time to answer the application's unregister afterwards
   */
  record Commits(
      ServerBenchResults.ServerSetup server,
      int maps,
      int partitions,
      int commitsInFlight,
      double seconds,
      long heapBefore,
      long heapAfter,
      Memory memory,
      int countsChecked,
      String countsProblem,
      double serverCpuSeconds,
      double unregisterMillis) {

    long pairs() {
      return (long) maps * partitions;
    }

    double heapBytesPerPair() {
      return (heapAfter - heapBefore) / (double) pairs();
    }
  }

  /**
   * The unregister-latency part.
   *
   * @param files files of the large application on disk when it was unregistered
   * @param bytesOnDisk their bytes
   * @param answerMillis time to the unregister's answer
   * @param deletionMillis time until its files were gone (the trash empty)
   * @param fetchProblems problems the fetch loop's checks found
   */
  record Unregister(
      ServerBenchResults.ServerSetup server,
      int partitions,
      long files,
      long bytesOnDisk,
      double answerMillis,
      double deletionMillis,
      LatencyStats commitsBefore,
      LatencyStats commitsDuring,
      LatencyStats fetchesBefore,
      LatencyStats fetchesDuring,
      long fetchProblems,
      String firstFetchProblem,
      Memory memory) {}
}
