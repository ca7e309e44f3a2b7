package io.sluice.benchmark.server;

import java.util.List;

/** The series of the server's {@code /metrics} the benchmark reads. */
final class ServerMetricNames {
  static final String PUSH_HELD = "sluice_server_push_memory_held_bytes";
  static final String PUSH_ALLOCATED = "sluice_server_push_memory_allocated_bytes";
  static final String NETWORK = "sluice_server_network_memory_bytes";
  static final String NETTY_DIRECT = "sluice_server_netty_direct_memory_bytes";
  static final String READ_USED = "sluice_server_read_memory_used_bytes";
  /** The JDK's own direct buffers (NIO temporary buffers and the like), label pool="direct". */
  static final String JVM_BUFFER_POOL = "jvm_buffer_pool_used_bytes";
  static final String DIRECT_POOL_LABEL = "pool=\"direct\"";
  static final String PUSHED = "sluice_server_pushed_bytes_total";
  static final String FLUSHED = "sluice_server_flushed_bytes_total";
  static final String FLUSH_QUEUE = "sluice_server_flush_queue";
  static final String REJECTIONS = "sluice_server_push_rejections_total";
  static final String READ = "sluice_server_read_bytes_total";
  static final String GC_SECONDS = "jvm_gc_collection_seconds_sum";
  static final String GC_COUNT = "jvm_gc_collection_seconds_count";
  static final String CPU_SECONDS = "process_cpu_seconds_total";
  static final String RESIDENT = "process_resident_memory_bytes";

  /** All of the above: the scrape asks for these only, so that it stays cheap for the server. */
  static final List<String> ALL = List.of(PUSH_HELD, PUSH_ALLOCATED, NETWORK, NETTY_DIRECT,
      READ_USED, JVM_BUFFER_POOL, PUSHED, FLUSHED, FLUSH_QUEUE, REJECTIONS, READ, GC_SECONDS,
      GC_COUNT, CPU_SECONDS, RESIDENT);

  private ServerMetricNames() {}
}
