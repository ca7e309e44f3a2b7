package io.sluice.server.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server's Kerberos login against Hadoop's MiniKdc, whose tickets here live 10 s: the login
 * renews its ticket from the keytab before it expires, again and again, with no HDFS call asking
 * for it.
 */
class HdfsLoginTest {
  private static final long LIFETIME_MILLIS = 10_000;

  @TempDir static Path dir;
  private static MiniKdc kdc;
  private static Path keytab;

  @BeforeAll
  static void startKdc() throws Exception {
    Properties conf = MiniKdc.createConf();
    // In seconds (Kerby's unit).
    conf.setProperty(MiniKdc.MAX_TICKET_LIFETIME, String.valueOf(LIFETIME_MILLIS / 1000));
    conf.setProperty(MiniKdc.MAX_RENEWABLE_LIFETIME, String.valueOf(LIFETIME_MILLIS / 1000));
    kdc = new MiniKdc(conf, Files.createDirectories(dir.resolve("kdc")).toFile());
    kdc.start();
    keytab = dir.resolve("sluice.keytab");
    kdc.createPrincipal(keytab.toFile(), "sluice/localhost");
  }

  @AfterAll
  static void stopKdc() {
    if (kdc != null) {
      kdc.stop();
    }
    // Hadoop's security settings are process-wide: later tests expect Hadoop without Kerberos.
    UserGroupInformation.setConfiguration(new Configuration());
    UserGroupInformation.reset();
    System.clearProperty(MiniKdc.JAVA_SECURITY_KRB5_CONF);
  }

  @Test
  void theLoginRenewsItsTicketFromTheKeytabBeforeItExpires() throws Exception {
    Configuration conf = new Configuration();
    // Hadoop waits at least this long between two logins (60 s by default).
    conf.set("hadoop.kerberos.min.seconds.before.relogin", "1");
    try (HdfsLogin login =
        HdfsLogin.start(
            conf,
            new HdfsLogin.Keytab(
                "sluice/localhost@" + kdc.getRealm(), keytab.toString(), Duration.ofMillis(500)),
            "hdfs.kerberos.keytab")) {
      assertEquals("sluice/localhost@" + kdc.getRealm(), login.userName());
      long firstEnd = login.ticketEndMillis();
      assertTrue(firstEnd > System.currentTimeMillis(), "a ticket that has not expired yet");
      // Past the first ticket's end, the login holds a newer one: renewed twice by then at
      // 80% of each lifetime.
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * LIFETIME_MILLIS);
      while (System.currentTimeMillis() < firstEnd + 1_000 && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      long end = login.ticketEndMillis();
      assertTrue(
          end > firstEnd && end > System.currentTimeMillis(),
          "renewed: first ticket until "
              + firstEnd
              + ", now until "
              + end
              + ", at "
              + System.currentTimeMillis());
    }
  }

  @Test
  void aKeytabThatIsNotThereIsRefusedNamingTheSetting() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                HdfsLogin.start(
                    new Configuration(),
                    new HdfsLogin.Keytab(
                        "sluice/localhost@" + kdc.getRealm(),
                        dir.resolve("missing.keytab").toString(),
                        Duration.ofSeconds(60)),
                    "hdfs.kerberos.keytab"));
    assertEquals(
        "'hdfs.kerberos.keytab' names '"
            + dir.resolve("missing.keytab")
            + "', which is not a readable file",
        e.getMessage());
  }
}
