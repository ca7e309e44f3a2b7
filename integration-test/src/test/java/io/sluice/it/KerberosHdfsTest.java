package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.fixtures.Daemons;
import io.sluice.server.ServerOptions;
import io.sluice.testcluster.ClassPathLauncher;
import io.sluice.testcluster.MetricsScrape;
import io.sluice.testcluster.ProcessCluster;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * The HDFS tier on a secured HDFS: Hadoop's own MiniKdc and a MiniDFSCluster that requires
 * Kerberos. Servers (processes of their own, with Hadoop's site files on their class path as {@code
 * bin/start-server.sh} puts {@code HADOOP_CONF_DIR} there) log in from a keytab ({@code
 * hdfs.kerberos.principal}, {@code hdfs.kerberos.keytab}) and keep every partition on HDFS; a Spark
 * job through them gets the built-in shuffle's answer, and the data was written to and read from
 * HDFS as the Sluice principal. A server without the login does not start and says which settings
 * it lacks.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class KerberosHdfsTest {
  private static MiniKdc kdc;
  private static MiniDFSCluster dfs;
  private static Path work;
  private static Path siteDir;
  private static Path sluiceKeytab;
  private static String realm;

  private static List<Tuple2<Integer, long[]>> expected;

  @BeforeAll
  static void start() throws Exception {
    expected =
        ServerLossTest.job(SparkSessions.base("local[2]", "kerberos-reference"), new JobObserver());
    work = Files.createTempDirectory("sluice-kerberos");
    Properties kdcConf = MiniKdc.createConf();
    kdc = new MiniKdc(kdcConf, Files.createDirectories(work.resolve("kdc")).toFile());
    kdc.start();
    realm = kdc.getRealm();
    File hdfsKeytab = work.resolve("hdfs.keytab").toFile();
    kdc.createPrincipal(hdfsKeytab, "hdfs/localhost", "HTTP/localhost");
    sluiceKeytab = work.resolve("sluice.keytab");
    kdc.createPrincipal(sluiceKeytab.toFile(), "sluice/localhost");

    Map<String, String> secure = new HashMap<>();
    secure.put("hadoop.security.authentication", "kerberos");
    secure.put("dfs.namenode.kerberos.principal", "hdfs/localhost@" + realm);
    secure.put("dfs.datanode.kerberos.principal", "hdfs/localhost@" + realm);
    secure.put("dfs.block.access.token.enable", "true");
    Configuration hadoop = new Configuration();
    secure.forEach(hadoop::set);
    hadoop.set("dfs.namenode.keytab.file", hdfsKeytab.toString());
    hadoop.set("dfs.datanode.keytab.file", hdfsKeytab.toString());
    hadoop.set("dfs.web.authentication.kerberos.principal", "HTTP/localhost@" + realm);
    hadoop.set("dfs.web.authentication.kerberos.keytab", hdfsKeytab.toString());
    // A data node on unprivileged ports without SASL on its data transfer: a test set-up only.
    hadoop.set("ignore.secure.ports.for.testing", "true");
    hadoop.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, work.resolve("dfs").toString());
    UserGroupInformation.setConfiguration(hadoop);
    UserGroupInformation.loginUserFromKeytab("hdfs/localhost@" + realm, hdfsKeytab.toString());
    dfs = new MiniDFSCluster.Builder(hadoop).numDataNodes(1).build();
    dfs.waitActive();
    // The Sluice principal's directory, made by the file system's superuser.
    try (FileSystem fs = FileSystem.newInstance(dfs.getURI(), hadoop)) {
      org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/sluice");
      fs.mkdirs(dir, new FsPermission((short) 0700));
      fs.setOwner(dir, "sluice", null);
    }

    // What a server's host has in HADOOP_CONF_DIR: how to reach and authenticate to HDFS.
    siteDir = Files.createDirectories(work.resolve("hadoop-conf"));
    StringBuilder site = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
    secure.forEach(
        (key, value) ->
            site.append("  <property><name>")
                .append(key)
                .append("</name><value>")
                .append(value)
                .append("</value></property>\n"));
    site.append("</configuration>\n");
    Files.writeString(siteDir.resolve("core-site.xml"), site);
    Files.writeString(siteDir.resolve("hdfs-site.xml"), site);
  }

  @AfterAll
  static void stop() {
    try {
      if (dfs != null) {
        dfs.shutdown(true);
      }
    } finally {
      if (kdc != null) {
        kdc.stop();
      }
      // Hadoop's security settings are process-wide: the test classes after this one run in the
      // same JVM and expect Hadoop without Kerberos.
      UserGroupInformation.setConfiguration(new Configuration());
      UserGroupInformation.reset();
      System.clearProperty("java.security.krb5.conf");
    }
  }

  private static ClassPathLauncher kerberosJvm() {
    return new ClassPathLauncher(
        List.of("-Djava.security.krb5.conf=" + kdc.getKrb5conf()), List.of(siteDir));
  }

  @Test
  void serversLoggedInFromAKeytabKeepAJobsShuffleOnASecuredHdfs() throws Exception {
    Map<String, String> settings =
        Map.of(
            ServerOptions.HDFS_DIR.key(),
            dfs.getURI() + "/sluice",
            // Every partition goes on on HDFS from its first flush.
            ServerOptions.HDFS_PARTITION_THRESHOLD.key(),
            "0",
            ServerOptions.PARTITION_FLUSH_THRESHOLD.key(),
            "64k",
            ServerOptions.HDFS_KERBEROS_PRINCIPAL.key(),
            "sluice/_HOST@" + realm,
            ServerOptions.HDFS_KERBEROS_KEYTAB.key(),
            sluiceKeytab.toString(),
            ServerOptions.HDFS_KERBEROS_RELOGIN_CHECK.key(),
            "1s");
    try (ProcessCluster cluster =
        ProcessCluster.forTests(2).serverSettings(settings).launcher(kerberosJvm()).start()) {
      JobObserver observer = new JobObserver();
      SparkConf conf =
          SparkSessions.withSluice(
              SparkSessions.base("local[2,4]", "kerberos"), cluster.coordinatorAddress());
      List<Tuple2<Integer, long[]>> answer = ServerLossTest.job(conf, observer);
      ServerLossTest.assertSameAnswer(expected, answer);
      assertTrue(observer.failures().isEmpty(), "no task failed: " + observer.failures());

      double toHdfs = 0;
      double fromHdfs = 0;
      for (int i = 0; i < 2; i++) {
        MetricsScrape metrics = MetricsScrape.fetch(cluster.httpPort(i));
        toHdfs += metrics.sum("sluice_server_hdfs_flushed_bytes_total");
        double expiry = metrics.sum("sluice_server_hdfs_kerberos_ticket_expiry_seconds");
        assertTrue(expiry > 0, "server " + i + "'s ticket expires in " + expiry + " s");
        for (MetricsScrape.Sample s : metrics.samples()) {
          if (s.name().equals("sluice_server_read_bytes_total")
              && s.labels().contains("\"hdfs\"")) {
            fromHdfs += s.value();
          }
        }
      }
      assertTrue(
          toHdfs > 0 && fromHdfs > 0,
          "the shuffle went through HDFS: " + toHdfs + " bytes written, " + fromHdfs + " read");
      for (int i = 0; i < 2; i++) {
        String log = Files.readString(cluster.log(i));
        assertTrue(
            log.contains("Logged in to HDFS as sluice/localhost@" + realm),
            "server " + i + " logged in as the Sluice principal");
      }
    }
  }

  @Test
  void aServerWithoutTheLoginDoesNotStartAndNamesTheSettings() throws Exception {
    Path dir = Files.createTempDirectory(work, "no-login");
    Path conf =
        Files.writeString(
            dir.resolve("server.conf"),
            String.join(
                "\n",
                "server.port " + Daemons.freePort(),
                "server.http.port -1",
                "local.dirs " + dir.resolve("data"),
                "disk.min.free 0",
                "buffer.capacity 64m",
                "read.buffer.capacity 16m",
                ServerOptions.HDFS_DIR.key() + " " + dfs.getURI() + "/sluice",
                ""));
    // As an operator starts it: bin/start-server.sh with HADOOP_CONF_DIR.
    Daemons.Result start =
        Daemons.inProject()
            .run(
                Map.of(
                    "HADOOP_CONF_DIR", siteDir.toString(),
                    "SLUICE_JAVA_OPTS", "-Djava.security.krb5.conf=" + kdc.getKrb5conf(),
                    "SLUICE_LOG_DIR", dir.resolve("logs").toString(),
                    "SLUICE_PID_DIR", dir.resolve("run").toString(),
                    "SLUICE_SERVER_HEAP", "256m"),
                "bin/start-server.sh",
                conf.toString());
    assertEquals(1, start.exitCode(), start.output());
    assertTrue(
        start
            .output()
            .contains(
                "set '"
                    + ServerOptions.HDFS_KERBEROS_PRINCIPAL.key()
                    + "' and '"
                    + ServerOptions.HDFS_KERBEROS_KEYTAB.key()
                    + "'"),
        start.output());
  }
}
