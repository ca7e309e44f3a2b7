package io.sluice.benchmark.transport;

import io.sluice.benchmark.Series;
import java.util.Map;
import java.util.TreeMap;

/** Everything one invocation measured, per round. */
final class TransportResults {
  /** Pushed body bytes per second, by connection count. */
  final Map<Integer, Series> bulkBytesPerSecond = new TreeMap<>();

  /** CPU-seconds of client and server per GiB of pushed bodies, by connection count. */
  final Map<Integer, Series> bulkCpuPerGib = new TreeMap<>();

  /** iperf3's CPU-seconds (client and server) per GiB received, by stream count. */
  final Map<Integer, Series> iperfCpuPerGib = new TreeMap<>();

  /** iperf3's received bits per second, by stream count. */
  final Map<Integer, Series> iperfBitsPerSecond = new TreeMap<>();

  /** 100-byte messages per second, one message per request. */
  final Series unbatchedMessagesPerSecond = new Series();

  /** 100-byte messages per second, many packed per frame. */
  final Series batchedMessagesPerSecond = new Series();

  Series bulk(int connections) {
    return bulkBytesPerSecond.computeIfAbsent(connections, c -> new Series());
  }

  Series bulkCpu(int connections) {
    return bulkCpuPerGib.computeIfAbsent(connections, c -> new Series());
  }

  Series iperfCpu(int streams) {
    return iperfCpuPerGib.computeIfAbsent(streams, s -> new Series());
  }

  Series iperf(int streams) {
    return iperfBitsPerSecond.computeIfAbsent(streams, s -> new Series());
  }
}
