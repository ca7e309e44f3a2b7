package io.sluice.server.storage;

import io.sluice.common.config.ConfigException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.security.auth.Subject;
import javax.security.auth.kerberos.KerberosTicket;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's Kerberos login to a secured HDFS ({@code hdfs.kerberos.principal}, {@code
 * hdfs.kerberos.keytab}): logged in from the keytab at start, and the ticket checked every {@code
 * hdfs.kerberos.relogin.check.interval}, logging in again once it has passed 80% of its lifetime
 * (Hadoop's rule), so that a server running for weeks keeps its access to HDFS.
 *
 * <p>The login is this object's own user, not the JVM's static login user; a file system opened
 * through {@link #run} keeps acting as that user from any thread (Hadoop's client binds its calls
 * to the user it was created by).
 */
public final class HdfsLogin implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(HdfsLogin.class);

  /** What to log in with: a principal ({@code _HOST} allowed) and its keytab. */
  public record Keytab(String principal, String keytabFile, Duration checkInterval) {}

  private final UserGroupInformation user;
  private final ScheduledExecutorService checker;
  private final AtomicLong failedChecks = new AtomicLong();

  private HdfsLogin(UserGroupInformation user, Duration checkInterval) {
    this.user = user;
    this.checker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-hdfs-relogin");
              t.setDaemon(true);
              return t;
            });
    long millis = checkInterval.toMillis();
    checker.scheduleWithFixedDelay(this::reloginIfDue, millis, millis, TimeUnit.MILLISECONDS);
  }

  /**
   * Logs in; sets Kerberos as Hadoop's authentication in {@code conf} (and for this JVM's Hadoop
   * client, whose security settings are process-wide).
   *
   * @param keytabKey the setting that named the keytab, for error messages
   */
  static HdfsLogin start(Configuration conf, Keytab keytab, String keytabKey) throws IOException {
    Path file = Path.of(keytab.keytabFile());
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new ConfigException(
          "'" + keytabKey + "' names '" + file + "', which is not a readable file");
    }
    conf.set("hadoop.security.authentication", "kerberos");
    UserGroupInformation.setConfiguration(conf);
    String principal = SecurityUtil.getServerPrincipal(keytab.principal(), "0.0.0.0");
    UserGroupInformation user =
        UserGroupInformation.loginUserFromKeytabAndReturnUGI(principal, file.toString());
    LOG.info("Logged in to HDFS as {} from {}", user.getUserName(), file);
    return new HdfsLogin(user, keytab.checkInterval());
  }

  /** Runs {@code action} as the logged-in user: where a file system is opened. */
  <T> T run(PrivilegedExceptionAction<T> action) throws IOException {
    try {
      return user.doAs(action);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while acting as " + user.getUserName(), e);
    }
  }

  /**
   * When the ticket-granting ticket of the login expires (epoch milliseconds), or -1 when it holds
   * none: a login renewed in time always expires in the future.
   */
  // Hadoop hides the login's Subject; inside doAs it is the calling context's (Java 17 has no
  // Subject.current() yet, hence the deprecated lookup).
  @SuppressWarnings("removal")
  public long ticketEndMillis() {
    Subject subject =
        user.doAs(
            (java.security.PrivilegedAction<Subject>)
                () -> Subject.getSubject(java.security.AccessController.getContext()));
    if (subject == null) {
      return -1;
    }
    for (KerberosTicket ticket : subject.getPrivateCredentials(KerberosTicket.class)) {
      if (ticket.getServer().getName().startsWith("krbtgt/")) {
        return ticket.getEndTime().getTime();
      }
    }
    return -1;
  }

  /** The logged-in user's name, principal included. */
  public String userName() {
    return user.getUserName();
  }

  private void reloginIfDue() {
    try {
      user.checkTGTAndReloginFromKeytab();
      failedChecks.set(0);
    } catch (IOException | RuntimeException e) {
      // One line per failure streak start and then every tenth: a KDC outage lasts a while.
      long failures = failedChecks.incrementAndGet();
      if (failures == 1 || failures % 10 == 0) {
        LOG.warn(
            "Kerberos login to HDFS as {} could not be renewed ({} checks in a row): {}",
            user.getUserName(),
            failures,
            e.toString());
      }
    }
  }

  @Override
  public void close() {
    checker.shutdownNow();
  }
}
