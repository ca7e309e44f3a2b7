package io.sluice.server.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.storage.DiskManager;
import io.sluice.server.storage.FileIo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Applications expire after {@code app.expiry} without a heartbeat, counted in time the server ran:
 * a pause of the server's own process does not count against them.
 */
class ExpiryTest {
  private static final Duration EXPIRY = Duration.ofSeconds(8);
  private static final Duration SWEEP = EXPIRY.dividedBy(4);

  @TempDir Path dir;
  private final AtomicLong now = new AtomicLong();
  private DiskManager disks;
  private ShuffleStore store;

  @BeforeEach
  void setUp() {
    PushBufferPool pool = new PushBufferPool(16L << 20, 0.75, 0.5);
    disks = new DiskManager(List.of(dir.resolve("d1")), 0, 1, FileIo.DEFAULT);
    store =
        ShuffleStore.onLocalDisks(
            disks, FileIo.DEFAULT, pool::free, now::get, StoreLimits.unlimited());
  }

  @AfterEach
  void tearDown() {
    disks.close();
  }

  /** Moves the clock on by {@code d} and runs the expiry check as the server's sweeper does. */
  private List<String> after(Duration d) {
    now.addAndGet(d.toNanos());
    return store.expire(EXPIRY);
  }

  @Test
  void anApplicationSilentForTheExpiryIsRemoved() {
    store.registerApplication("quiet", "u", null);
    store.registerApplication("talking", "u", null);
    for (int i = 0; i < 4; i++) {
      assertEquals(List.of(), after(SWEEP));
      store.heartbeat("talking");
    }
    assertEquals(List.of("quiet"), after(SWEEP));
    assertEquals(1, store.applications().size());
  }

  @Test
  void timeTheServerDidNotRunDoesNotCount() {
    store.registerApplication("app", "u", null);
    assertEquals(List.of(), after(SWEEP));
    // The process stood still for three expiries (SIGSTOP, a frozen VM): nothing expires now...
    assertEquals(List.of(), after(EXPIRY.multipliedBy(3)));
    // ...and the application has a whole expiry from the resumption to be heard from.
    for (int i = 0; i < 4; i++) {
      assertEquals(List.of(), after(SWEEP), "sweep " + i + " after the pause");
    }
    assertEquals(List.of("app"), after(Duration.ofNanos(TimeUnit.MILLISECONDS.toNanos(1))));
  }
}
