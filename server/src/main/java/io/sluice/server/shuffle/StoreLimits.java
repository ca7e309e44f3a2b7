package io.sluice.server.shuffle;

import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.StatusCode;
import io.sluice.server.ServerJvmOptions;
import io.sluice.server.ServerOptions;
import java.util.Collection;

/**
 * How many applications (in all, and per user) and shuffles per application one server holds at
 * once, and how much heap their commit bookkeeping may take, so that no client can fill its heap
 * with registrations or commits. Checked when one more would be added; a refusal names the key that
 * raises the limit.
 *
 * @param commitHeapBytes heap for commit counts and attempt tables, over every shuffle ({@link
 *     CommitBudget})
 */
public record StoreLimits(
    int applications, int applicationsPerUser, int shufflesPerApplication, long commitHeapBytes) {

  public static StoreLimits of(SluiceConf conf) {
    return new StoreLimits(
        conf.get(ServerOptions.MAX_APPLICATIONS),
        conf.get(ServerOptions.MAX_APPLICATIONS_PER_USER),
        conf.get(ServerOptions.MAX_SHUFFLES_PER_APPLICATION),
        conf.get(ServerOptions.HEAP_COMMIT_PAIRS)
            * ServerJvmOptions.HEAP_BYTES_PER_100_COMMIT_PAIRS
            / 100);
  }

  /** Limits no test or benchmark reaches. */
  public static StoreLimits unlimited() {
    return new StoreLimits(Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE);
  }

  void checkNewApplication(Collection<AppState> apps, String user) {
    if (apps.size() >= applications) {
      throw refused(
          apps.size() + " applications are registered, the most this server holds",
          ServerOptions.MAX_APPLICATIONS.key());
    }
    long ofUser = apps.stream().filter(a -> a.user().equals(user)).count();
    if (ofUser >= applicationsPerUser) {
      throw refused(
          "user "
              + user
              + " has "
              + ofUser
              + " applications registered, the most one "
              + "user may have",
          ServerOptions.MAX_APPLICATIONS_PER_USER.key());
    }
  }

  void checkNewShuffle(AppState app) {
    int shuffles = app.shuffleMap().size();
    if (shuffles >= shufflesPerApplication) {
      throw refused(
          "application "
              + app.appId()
              + " has "
              + shuffles
              + " shuffles registered, "
              + "the most one application may have",
          ServerOptions.MAX_SHUFFLES_PER_APPLICATION.key());
    }
  }

  private static RequestRejectedException refused(String why, String key) {
    return new RequestRejectedException(StatusCode.REFUSED, why + " ('" + key + "')");
  }
}
