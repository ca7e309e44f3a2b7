package io.sluice.server;

import io.sluice.common.config.ConfigException;
import io.sluice.common.config.ConfigOption;
import io.sluice.common.config.ConfigOptionSet;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.transport.TransportOptions;
import io.sluice.server.storage.DiskManager;
import java.time.Duration;
import java.util.List;

/** Settings of a shuffle server, read from {@code conf/server.conf}. */
public final class ServerOptions implements ConfigOptionSet {

  public static final ConfigOption<String> SERVER_ID =
      ConfigOption.string("server.id")
          .noDefault()
          .doc("Stable id of this server in the cluster; unset derives `host:port`.")
          .build();

  public static final ConfigOption<String> BIND_HOST =
      ConfigOption.string("server.bind.host")
          .defaultValue("127.0.0.1")
          .doc(
              "Address the data port and HTTP port listen on: loopback unless set, so that a "
                  + "server is reachable from other hosts only where the operator says so (0.0.0.0 for "
                  + "every interface).")
          .build();

  public static final ConfigOption<String> ADVERTISED_HOST =
      ConfigOption.string("server.advertised.host")
          .noDefault()
          .doc(
              "Host name clients use to reach this server, sent to coordinators; unset uses the "
                  + "machine's canonical host name.")
          .build();

  public static final ConfigOption<String> NODE =
      ConfigOption.string("server.node")
          .noDefault()
          .doc(
              "The machine this server runs on, sent to coordinators, which keep the copies of a "
                  + "partition on servers of different nodes (while there are enough nodes). Unset, "
                  + "the node is the host clients reach the server by (`server.advertised.host`). Set "
                  + "it where that host does not name the machine: on Kubernetes, every pod has a name "
                  + "of its own, and the node's name (spec.nodeName) is the machine.")
          .build();

  public static final ConfigOption<Integer> PORT =
      ConfigOption.integer("server.port")
          .defaultValue("19999")
          .min(0)
          .max(65535)
          .doc("Data port (push, fetch, control requests); 0 picks a free port.")
          .build();

  public static final ConfigOption<Integer> HTTP_PORT =
      ConfigOption.integer("server.http.port")
          .defaultValue("19998")
          .min(-1)
          .max(65535)
          .doc(
              "Port of `/metrics` (Prometheus) and `/status` (JSON); 0 picks a free port, -1 "
                  + "disables HTTP.")
          .build();

  public static final ConfigOption<List<String>> COORDINATORS =
      ConfigOption.list("server.coordinators")
          .defaultValue("")
          .doc(
              "Coordinators to heart-beat to, as `host:port,host:port`; empty runs the server "
                  + "stand-alone.")
          .build();

  public static final ConfigOption<Duration> HEARTBEAT_INTERVAL =
      ConfigOption.duration("server.heartbeat.interval")
          .defaultValue("5s")
          .doc("How often the server reports its state to every coordinator.")
          .build();

  public static final ConfigOption<List<String>> TAGS =
      ConfigOption.list("server.tags")
          .defaultValue("")
          .doc("Tags sent to coordinators; applications may ask for servers with given tags.")
          .build();

  public static final ConfigOption<Long> BUFFER_CAPACITY =
      ConfigOption.bytes("buffer.capacity")
          .defaultValue("1g")
          .min(16L << 20)
          .doc(
              "Off-heap memory for pushed blocks not yet flushed. A push beyond it is refused "
                  + "with the retriable NO_BUFFER status, and later pushes wait unread while flushes "
                  + "free memory (`buffer.push.wait`).")
          .build();

  public static final ConfigOption<Duration> PUSH_WAIT =
      ConfigOption.duration("buffer.push.wait")
          .defaultValue("1s")
          .min(0)
          .max(60_000)
          .doc(
              "Once the push memory refused a push for want of room, how long each further push "
                  + "waits unread, its connection not read, while flushes under way free blocks of "
                  + "its size (or bring the pool below `buffer.flush.high.watermark`), before it is "
                  + "read all the same (and refused with NO_BUFFER if there is still no room). "
                  + "Holding the push in its client's socket costs no network transfer; refusing it "
                  + "costs one, and another when the client sends it again. Later requests on that "
                  + "connection wait behind the push. Pushes another server forwards are never held. "
                  + "`0` reads every push at once.")
          .build();

  public static final ConfigOption<Duration> CHUNK_KEEP =
      ConfigOption.duration("buffer.chunk.keep")
          .defaultValue("5m")
          .min(0)
          .max(86_400_000)
          .doc(
              "How long the push memory keeps a 1 MiB chunk whose blocks were all flushed, "
                  + "mapped for the next blocks, before giving it back to the operating system. Such "
                  + "chunks count against `buffer.capacity` and give way to any allocation that needs "
                  + "the room. Memory mapped anew costs a page fault and the kernel's zeroing of each "
                  + "4 KiB page when a push first fills it. `0` gives each chunk back as it empties. "
                  + "Read memory keeps the 1 MiB buffers of direct reads (`read.buffer.capacity`) "
                  + "as long.")
          .build();

  public static final ConfigOption<Long> READ_BUFFER_CAPACITY =
      ConfigOption.bytes("read.buffer.capacity")
          .defaultValue("256m")
          .min(4L << 20)
          .doc(
              "Off-heap memory for data being served to readers: memory reads, indexes assembled "
                  + "in memory, data read from HDFS, and the 1 MiB buffers that data written with "
                  + "O_DIRECT (`flush.direct`) is read into, in use or kept for the next such read "
                  + "until unused for `buffer.chunk.keep`. Memory and HDFS reads beyond it are "
                  + "answered with the retriable BUSY status, and kept buffers make room for them; "
                  + "direct reads' buffers take at most half of it, and a direct read that finds no "
                  + "room goes out with sendfile instead.")
          .build();

  public static final ConfigOption<Double> FLUSH_HIGH_WATERMARK =
      ConfigOption.doubleValue("buffer.flush.high.watermark")
          .defaultValue("0.75")
          .min(0.1)
          .max(0.95)
          .doc(
              "Fraction of `"
                  + BUFFER_CAPACITY.key()
                  + "` at which flushing starts (largest "
                  + "partitions first).")
          .build();

  public static final ConfigOption<Double> FLUSH_LOW_WATERMARK =
      ConfigOption.doubleValue("buffer.flush.low.watermark")
          .defaultValue("0.5")
          .min(0.0)
          .max(0.9)
          .doc("Fraction of `" + BUFFER_CAPACITY.key() + "` down to which a flush round drains.")
          .build();

  public static final ConfigOption<Long> PARTITION_FLUSH_THRESHOLD =
      ConfigOption.bytes("buffer.partition.flush.threshold")
          .defaultValue("32m")
          .min(64 * 1024L)
          .doc(
              "A single partition holding this much unflushed data is flushed on its own, whatever "
                  + "the watermarks, so that writes to disk stay large and sequential.")
          .build();

  /** Which data files flushes write with O_DIRECT, around the page cache. */
  public enum FlushDirect {
    /** None: every flush goes through the page cache. */
    NONE,
    /** Partitions this server holds as the last copy of a replica chain. */
    LAST_COPIES,
    /** Every partition on a local disk. */
    ALL
  }

  public static final ConfigOption<FlushDirect> FLUSH_DIRECT =
      ConfigOption.enumValue("flush.direct", FlushDirect.class)
          .defaultValue("all")
          .doc(
              "Which partitions flushes write with O_DIRECT, around the page cache: `all`, "
                  + "`last_copies` (only those this server holds as the last copy of a replica chain, "
                  + "read first only by a task's later attempt or when the servers before it are "
                  + "lost or slow) or `none`. A flush writes what the "
                  + "push pool has no room for; a copy of it in the page cache costs the flush thread "
                  + "several times the CPU of a direct write, and pays off only when the data is read "
                  + "before the kernel evicts it, since data written directly is read from the device: "
                  + "with direct I/O as well, by the disk's read threads (`read.threads.per.disk`), "
                  + "into buffers of `read.buffer.capacity`, so that no event loop waits for the "
                  + "device. `last_copies` suits "
                  + "servers whose page cache holds what they flush until it is read; `none` suits "
                  + "storage where synchronous writes of up to 4 MiB are slow (network block devices). "
                  + "With any but `none` each flush thread holds a 1 MiB staging buffer (counted in the "
                  + "direct memory bin/start-server.sh sets), and a directly written data file may hold "
                  + "up to 4,095 zero bytes before each block of 64 KiB or more (docs/protocol.md).")
          .build();

  public static final ConfigOption<List<String>> LOCAL_DIRS =
      ConfigOption.list("local.dirs")
          .defaultValue("/tmp/sluice-data")
          .doc(
              "Directories (ideally one per disk) that hold flushed shuffle data. New partitions go "
                  + "to the healthy directory with the most free space.")
          .build();

  public static final ConfigOption<Integer> FLUSH_THREADS_PER_DISK =
      ConfigOption.integer("flush.threads.per.disk")
          .defaultValue("2")
          .min(1)
          .max(64)
          .doc(
              "Writer threads per local directory. A flush thread is busy either copying into "
                  + "the page cache or waiting for a direct write, so a second one keeps an SSD "
                  + "writing meanwhile; one suits a spinning disk.")
          .build();

  public static final ConfigOption<Integer> READ_THREADS_PER_DISK =
      ConfigOption.integer("read.threads.per.disk")
          .defaultValue(String.valueOf(DiskManager.DEFAULT_READ_THREADS))
          .min(1)
          .max(64)
          .doc(
              "Threads per local directory that read data written with O_DIRECT (`flush.direct`) "
                  + "for readers, a request of up to `spark.sluice.fetch.max.request` at a time, "
                  + "each waiting for the device meanwhile: two keep an SSD busy while the event "
                  + "loops send what they read. As many requests again may wait for them; further "
                  + "ones go out with sendfile.")
          .build();

  public static final ConfigOption<Long> DISK_MIN_FREE =
      ConfigOption.bytes("disk.min.free")
          .defaultValue("1g")
          .min(0L)
          .doc(
              "A directory with less free space than this takes no new partitions and is reported "
                  + "full.")
          .build();

  public static final ConfigOption<String> HDFS_DIR =
      ConfigOption.string("hdfs.dir")
          .noDefault()
          .doc(
              "A Hadoop-compatible directory (hdfs://namenode:8020/sluice) for the data that the "
                  + "local directories cannot take: when all are full or failed, or for a partition "
                  + "past `hdfs.partition.threshold`. Each server writes under a directory of its own "
                  + "there and serves that data to readers itself. Hadoop's own settings come from the "
                  + "site files in the directory that HADOOP_CONF_DIR names. Unset: no HDFS tier, and "
                  + "pushes are refused while no local directory can take data.")
          .build();

  public static final ConfigOption<Long> HDFS_PARTITION_THRESHOLD =
      ConfigOption.bytes("hdfs.partition.threshold")
          .noDefault()
          .min(0L)
          .doc(
              "With `hdfs.dir` set, a partition whose flushed data on this server has reached "
                  + "this size goes on on HDFS, so that one huge partition cannot fill a local disk. "
                  + "Unset: partitions go to HDFS only when no local directory can take them.")
          .build();

  public static final ConfigOption<Integer> HDFS_FLUSH_THREADS =
      ConfigOption.integer("hdfs.flush.threads")
          .defaultValue("4")
          .min(1)
          .max(256)
          .doc("Threads that write flushes to `hdfs.dir`.")
          .build();

  public static final ConfigOption<Integer> HDFS_READ_THREADS =
      ConfigOption.integer("hdfs.read.threads")
          .defaultValue("4")
          .min(1)
          .max(256)
          .doc(
              "Threads that read data on `hdfs.dir` for readers, into memory charged to `"
                  + "read.buffer.capacity` until it is sent.")
          .build();

  public static final ConfigOption<String> HDFS_KERBEROS_PRINCIPAL =
      ConfigOption.string("hdfs.kerberos.principal")
          .noDefault()
          .doc(
              "The Kerberos principal the server logs in to a secured HDFS as (sluice/_HOST@REALM; "
                  + "_HOST becomes this host's fully qualified name), with the key of "
                  + "`hdfs.kerberos.keytab`. Set both or neither: unset, the server uses HDFS as the "
                  + "user it runs as, which a cluster with Kerberos refuses.")
          .build();

  public static final ConfigOption<String> HDFS_KERBEROS_KEYTAB =
      ConfigOption.string("hdfs.kerberos.keytab")
          .noDefault()
          .doc(
              "The keytab file holding the key of `hdfs.kerberos.principal` (not readable by "
                  + "every user). The server logs in from it at start and again before its ticket "
                  + "expires.")
          .build();

  public static final ConfigOption<Duration> HDFS_KERBEROS_RELOGIN_CHECK =
      ConfigOption.duration("hdfs.kerberos.relogin.check.interval")
          .defaultValue("60s")
          .min(1000)
          .doc(
              "How often the server checks its Kerberos ticket for HDFS; it logs in again from "
                  + "the keytab once the ticket has passed 80% of its lifetime.")
          .build();

  public static final ConfigOption<Duration> APP_EXPIRY =
      ConfigOption.duration("app.expiry")
          .defaultValue("120s")
          .doc(
              "An application that sends no heartbeat for this long is removed with all its data. "
                  + "Time the server itself was paused (GC, SIGSTOP) does not count.")
          .build();

  public static final ConfigOption<Integer> HEAP_COMMIT_PAIRS =
      ConfigOption.integer("heap.commit.pairs")
          .defaultValue("100000000")
          .min(1000000)
          .doc(
              "(Map task, partition) pairs of committed block counts the server holds at once, "
                  + "over every shuffle (a 10,000-map x 10,000-partition shuffle is 100 M pairs): "
                  + "`bin/start-server.sh` gives the heap 1.5 bytes per pair, and the server refuses "
                  + "(REFUSED) a commit or push whose bookkeeping would take more than that: 1 byte "
                  + "per (committed map attempt, partition), 80 bytes per map attempt that committed, "
                  + "400 per partition held, and 8 per count above 253. Count re-run and speculative "
                  + "attempts that commit as maps too. `SLUICE_SERVER_HEAP`, when set, sets the heap "
                  + "instead but does not change this bound.")
          .build();

  public static final ConfigOption<Integer> HEAP_BLOCKS_IN_MEMORY =
      ConfigOption.integer("heap.blocks.in.memory")
          .defaultValue("1000000")
          .min(1000)
          .doc(
              "The most blocks the push pool holds at once, which bounds the heap their "
                  + "bookkeeping takes: every block is charged at least `buffer.capacity` / this much "
                  + "of the pool, so smaller blocks fill it (and are flushed) sooner; with the "
                  + "defaults a block under 1,074 bytes counts as 1,074. The charge stops at 32 KiB, "
                  + "so a pool larger than this x 32 KiB holds up to `buffer.capacity` / 32 KiB blocks. "
                  + "`bin/start-server.sh` gives the heap 160 bytes per block the pool can hold. "
                  + "`SLUICE_SERVER_HEAP`, when set, takes precedence.")
          .build();

  public static final ConfigOption<Integer> MAX_APPLICATIONS =
      ConfigOption.integer("app.max")
          .defaultValue("10000")
          .min(1)
          .doc(
              "Applications this server holds at once; one more is refused (REFUSED) until one "
                  + "ends or expires.")
          .build();

  public static final ConfigOption<Integer> MAX_APPLICATIONS_PER_USER =
      ConfigOption.integer("app.max.per.user")
          .defaultValue("1000")
          .min(1)
          .doc("Applications of one user (as its driver reports it) this server holds at once.")
          .build();

  public static final ConfigOption<Integer> MAX_SHUFFLES_PER_APPLICATION =
      ConfigOption.integer("app.max.shuffles")
          .defaultValue("10000")
          .min(1)
          .doc(
              "Shuffles one application has registered on this server at once (Spark unregisters "
                  + "a shuffle when its data is no longer referenced).")
          .build();

  public static final ConfigOption<Duration> REPLICATION_TIMEOUT =
      ConfigOption.duration("replication.timeout")
          .defaultValue("30s")
          .min(100)
          .doc(
              "How long a server waits for the next server of a replica chain to acknowledge a "
                  + "forwarded push before it answers the client REPLICA_UNAVAILABLE (the client then "
                  + "moves the partitions). Keep it below the clients' `"
                  + TransportOptions.REQUEST_TIMEOUT.key()
                  + "`.")
          .build();

  public static final ConfigOption<Boolean> RECOVERY_ENABLED =
      ConfigOption.bool("server.recovery.enabled")
          .defaultValue("true")
          .doc(
              "On a clean stop (SIGTERM, `bin/stop-server.sh`), after draining, write every block "
                  + "in memory to disk and record what the server holds (applications, shuffles, "
                  + "files, commits) in `sluice+restart` in its first healthy local directory, so that "
                  + "the next start with the same local directories serves it again: a rolling restart "
                  + "loses nothing. A server that crashed has nothing to recover and starts empty.")
          .build();

  public static final ConfigOption<Duration> DRAIN_TIMEOUT =
      ConfigOption.duration("server.drain.timeout")
          .defaultValue("30s")
          .doc(
              "When asked to stop (SIGTERM, `bin/stop-server.sh`), how long the server keeps "
                  + "serving reads and commits of the data it holds, while refusing new data, before "
                  + "it exits; it exits earlier once every application has ended. 0 stops at once.")
          .build();

  public static final ConfigOption<Duration> STOP_FLUSH_TIMEOUT =
      ConfigOption.duration("server.stop.flush.timeout")
          .defaultValue("60s")
          .doc(
              "On a clean stop with `"
                  + RECOVERY_ENABLED.key()
                  + "`, after draining, how long "
                  + "the server may take to write the blocks still in memory to disk. When they are "
                  + "not all written by then, it records nothing and the next start begins empty. A "
                  + "stop takes up to `"
                  + DRAIN_TIMEOUT.key()
                  + "` plus this: give `bin/stop-server.sh` "
                  + "(`SLUICE_STOP_TIMEOUT`) and a container's grace period more.")
          .build();

  private static final List<ConfigOption<?>> ALL =
      List.of(
          SERVER_ID,
          BIND_HOST,
          ADVERTISED_HOST,
          NODE,
          PORT,
          HTTP_PORT,
          COORDINATORS,
          HEARTBEAT_INTERVAL,
          TAGS,
          BUFFER_CAPACITY,
          PUSH_WAIT,
          CHUNK_KEEP,
          READ_BUFFER_CAPACITY,
          FLUSH_HIGH_WATERMARK,
          FLUSH_LOW_WATERMARK,
          HEAP_COMMIT_PAIRS,
          HEAP_BLOCKS_IN_MEMORY,
          PARTITION_FLUSH_THRESHOLD,
          FLUSH_DIRECT,
          LOCAL_DIRS,
          FLUSH_THREADS_PER_DISK,
          READ_THREADS_PER_DISK,
          DISK_MIN_FREE,
          HDFS_DIR,
          HDFS_PARTITION_THRESHOLD,
          HDFS_FLUSH_THREADS,
          HDFS_READ_THREADS,
          HDFS_KERBEROS_PRINCIPAL,
          HDFS_KERBEROS_KEYTAB,
          HDFS_KERBEROS_RELOGIN_CHECK,
          APP_EXPIRY,
          MAX_APPLICATIONS,
          MAX_APPLICATIONS_PER_USER,
          MAX_SHUFFLES_PER_APPLICATION,
          REPLICATION_TIMEOUT,
          RECOVERY_ENABLED,
          DRAIN_TIMEOUT,
          STOP_FLUSH_TIMEOUT);

  @Override
  public String title() {
    return "Shuffle server (conf/server.conf)";
  }

  @Override
  public String description() {
    return "Read by `bin/start-server.sh`, which also sizes the JVM's direct memory from `"
        + BUFFER_CAPACITY.key()
        + "` + `"
        + READ_BUFFER_CAPACITY.key()
        + "`.";
  }

  @Override
  public List<ConfigOption<?>> options() {
    return ALL;
  }

  @Override
  public void validate(SluiceConf conf) {
    if (conf.get(FLUSH_LOW_WATERMARK) >= conf.get(FLUSH_HIGH_WATERMARK)) {
      throw new ConfigException(
          "'"
              + FLUSH_LOW_WATERMARK.key()
              + "' ("
              + conf.get(FLUSH_LOW_WATERMARK)
              + ") must be lower than '"
              + FLUSH_HIGH_WATERMARK.key()
              + "' ("
              + conf.get(FLUSH_HIGH_WATERMARK)
              + ")");
    }
    if (conf.get(LOCAL_DIRS).isEmpty()) {
      throw new ConfigException("'" + LOCAL_DIRS.key() + "' must name at least one directory");
    }
    if (conf.isSet(HDFS_KERBEROS_PRINCIPAL) != conf.isSet(HDFS_KERBEROS_KEYTAB)) {
      throw new ConfigException(
          "'"
              + HDFS_KERBEROS_PRINCIPAL.key()
              + "' and '"
              + HDFS_KERBEROS_KEYTAB.key()
              + "' go together: set both, or neither");
    }
    if (conf.isSet(HDFS_KERBEROS_PRINCIPAL) && !conf.isSet(HDFS_DIR)) {
      throw new ConfigException(
          "'"
              + HDFS_KERBEROS_PRINCIPAL.key()
              + "' is set but '"
              + HDFS_DIR.key()
              + "' is not: the login is for the HDFS tier");
    }
  }
}
