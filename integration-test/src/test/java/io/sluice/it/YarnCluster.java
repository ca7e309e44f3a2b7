package io.sluice.it;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;

/**
 * A YARN cluster in this JVM: Hadoop's own {@code MiniYARNCluster} (a resource manager and one node
 * manager, from hadoop-client-minicluster), whose node manager starts each container (a Spark
 * application master, an executor) as a process of its own, as a real node manager does. {@link
 * #confDir} holds the {@code yarn-site.xml} a Spark client reads through {@code YARN_CONF_DIR}.
 */
final class YarnCluster implements Closeable {
  private final MiniYARNCluster yarn;
  private final Path confDir;

  YarnCluster(Path root) throws Exception {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(YarnConfiguration.RM_HOSTNAME, "127.0.0.1");
    // Room for an application master and two executors of 1 GiB each (heap and overhead).
    conf.setInt(YarnConfiguration.NM_PMEM_MB, 4096);
    conf.setInt(YarnConfiguration.NM_VCORES, 4);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 256);
    conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    // A full disk of this shared machine must not mark the node unhealthy.
    conf.set(YarnConfiguration.NM_MAX_PER_DISK_UTILIZATION_PERCENTAGE, "100.0");
    // hadoop-client-minicluster has no capacity-scheduler.xml: one queue, open to everyone.
    conf.set("yarn.scheduler.capacity.root.queues", "default");
    conf.setInt("yarn.scheduler.capacity.root.default.capacity", 100);
    conf.setInt("yarn.scheduler.capacity.root.default.maximum-capacity", 100);
    conf.setFloat("yarn.scheduler.capacity.root.default.user-limit-factor", 1);
    conf.set("yarn.scheduler.capacity.root.default.state", "RUNNING");
    conf.set("yarn.scheduler.capacity.root.default.acl_submit_applications", "*");
    conf.set("yarn.scheduler.capacity.root.default.acl_administer_queue", "*");
    conf.setInt("yarn.scheduler.capacity.node-locality-delay", -1);
    yarn = new MiniYARNCluster("sluice-yarn", 1, 1, 1);
    yarn.init(conf);
    yarn.start();
    try {
      // start() may return before the resource manager has put its port into the configuration.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (yarn.getConfig().get(YarnConfiguration.RM_ADDRESS).endsWith(":0")) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the resource manager did not publish its address");
        }
        Thread.sleep(50);
      }
      confDir = Files.createDirectories(root.resolve("yarn-conf"));
      try (OutputStream out = Files.newOutputStream(confDir.resolve("yarn-site.xml"))) {
        yarn.getConfig().writeXml(out);
      }
    } catch (Exception e) {
      yarn.stop();
      throw e;
    }
  }

  /** The directory to give Spark as {@code YARN_CONF_DIR}. */
  Path confDir() {
    return confDir;
  }

  /**
   * The final status of the application submitted last, once the resource manager has one (at most
   * 60 s after the application ended).
   */
  FinalApplicationStatus lastApplicationStatus() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      RMApp last =
          yarn.getResourceManager().getRMContext().getRMApps().values().stream()
              .max(Comparator.comparing(RMApp::getApplicationId))
              .orElseThrow(() -> new AssertionError("YARN knows no application"));
      FinalApplicationStatus status = last.getFinalApplicationStatus();
      if (status != FinalApplicationStatus.UNDEFINED || System.nanoTime() > deadline) {
        return status;
      }
      Thread.sleep(100);
    }
  }

  /** Every container's log files (stdout, stderr) the node manager kept, of every application. */
  List<Path> containerLogs() throws IOException {
    // MiniYARNCluster keeps its node managers' directories under its work directory; the log
    // directories are named after the node manager ("...-logDir-nm-0_0"). A node manager deletes
    // a finished container's private directories while this walks: what vanished is skipped.
    List<Path> logs = new ArrayList<>();
    Files.walkFileTree(
        yarn.getTestWorkDir().toPath(),
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            if (attrs.isRegularFile() && file.toString().contains("-logDir-nm-")) {
              logs.add(file);
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
              return FileVisitResult.CONTINUE;
            }
            throw e;
          }
        });
    return logs;
  }

  @Override
  public void close() {
    yarn.stop();
  }
}
