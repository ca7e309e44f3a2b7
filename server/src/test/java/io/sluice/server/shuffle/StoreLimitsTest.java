package io.sluice.server.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.auth.Secret;
import io.sluice.common.protocol.StatusCode;
import io.sluice.server.memory.PushBufferPool;
import io.sluice.server.storage.DiskManager;
import io.sluice.server.storage.FileIo;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * No client can fill a server's heap with registrations: applications in all and per user, and
 * shuffles per application, stop at their limits with a refusal naming the key, and free up again
 * when applications and shuffles go. An application keeps the secret it was first registered with.
 */
class StoreLimitsTest {
  @TempDir Path dir;
  private DiskManager disks;
  private ShuffleStore store;

  @BeforeEach
  void setUp() {
    PushBufferPool pool = new PushBufferPool(16L << 20, 0.75, 0.5);
    disks = new DiskManager(List.of(dir.resolve("d1")), 0, 1, FileIo.DEFAULT);
    store =
        ShuffleStore.onLocalDisks(
            disks,
            FileIo.DEFAULT,
            pool::free,
            System::nanoTime,
            new StoreLimits(3, 2, 2, 64 * 1024));
  }

  @AfterEach
  void tearDown() {
    for (AppState app : List.copyOf(store.applications())) {
      store.unregisterApplication(app.appId());
    }
    disks.close();
  }

  private static RequestRejectedException refused(Runnable r) {
    RequestRejectedException e = assertThrows(RequestRejectedException.class, r::run);
    assertEquals(StatusCode.REFUSED, e.status(), e.getMessage());
    return e;
  }

  @Test
  void applicationsStopAtTheLimitPerUserAndInAll() {
    store.registerApplication("a1", "alice", null);
    store.registerApplication("a2", "alice", null);
    RequestRejectedException perUser =
        refused(() -> store.registerApplication("a3", "alice", null));
    assertTrue(perUser.getMessage().contains("app.max.per.user"), perUser.getMessage());

    store.registerApplication("b1", "bob", null);
    RequestRejectedException all = refused(() -> store.registerApplication("c1", "carol", null));
    assertTrue(all.getMessage().contains("'app.max'"), all.getMessage());

    store.registerApplication("a1", "alice", null);
    assertEquals(3, store.applications().size(), "registering again is not one more");
    store.unregisterApplication("a1");
    store.registerApplication("c1", "carol", null);
  }

  @Test
  void shufflesStopAtTheLimitPerApplication() {
    store.registerApplication("a1", "alice", null);
    store.registerShuffle("a1", 0, 4);
    store.registerShuffle("a1", 1, 4);
    store.registerShuffle("a1", 1, 4);
    RequestRejectedException e = refused(() -> store.registerShuffle("a1", 2, 4));
    assertTrue(e.getMessage().contains("app.max.shuffles"), e.getMessage());
    store.unregisterShuffle("a1", 0);
    store.registerShuffle("a1", 2, 4);
  }

  @Test
  @Timeout(30)
  void partitionsStopAtTheBookkeepingBudget() {
    store.registerApplication("a1", "alice", null);
    store.registerShuffle("a1", 0, 1_000);
    ShuffleState shuffle = store.shuffle("a1", 0);
    // A client naming ever more partitions: their states (400 bytes each) meet the 64 KiB.
    RequestRejectedException e =
        refused(
            () -> {
              for (int p = 0; p < 1_000; p++) {
                shuffle.partition(p);
              }
            });
    assertTrue(e.getMessage().contains("heap.commit.pairs"), e.getMessage());
    assertTrue(store.commitHeapBytes() <= 64 * 1024, store.commitHeapBytes() + " bytes");
    store.unregisterShuffle("a1", 0);
    assertEquals(0, store.commitHeapBytes(), "a deleted shuffle gives its bookkeeping back");
  }

  @Test
  @Timeout(30)
  void commitsStopAtTheBookkeepingBudgetAndGiveItBack() {
    store.registerApplication("a1", "alice", null);
    store.registerShuffle("a1", 0, 100);
    ShuffleState shuffle = store.shuffle("a1", 0);
    for (int p = 0; p < 100; p++) {
      shuffle.partition(p);
    }
    long states = store.commitHeapBytes();
    // A client committing ever more attempts (some with counts beyond a byte) to every partition:
    // their counts and attempt entries meet the rest of the 64 KiB.
    int[] committedAttempts = new int[1];
    RequestRejectedException e =
        refused(
            () -> {
              for (long attempt = 0; attempt < 10_000; attempt++) {
                int number = shuffle.attemptNumber(attempt);
                for (int p = 0; p < 100; p++) {
                  shuffle.partition(p).commit(number, attempt % 7 == 0 ? 300 : 1);
                }
                committedAttempts[0]++;
              }
            });
    assertTrue(e.getMessage().contains("heap.commit.pairs"), e.getMessage());
    assertTrue(committedAttempts[0] > 50, committedAttempts[0] + " attempts committed");
    assertTrue(
        store.commitHeapBytes() > states && store.commitHeapBytes() <= 64 * 1024,
        store.commitHeapBytes() + " bytes");
    int[] counts = shuffle.partition(0).committedCounts(new long[] {0L, 1L});
    assertEquals(300, counts[0], "a refusal leaves the counts before it intact");
    assertEquals(1, counts[1]);
    store.unregisterShuffle("a1", 0);
    assertEquals(0, store.commitHeapBytes(), "a deleted shuffle gives its bookkeeping back");
    store.registerShuffle("a1", 1, 10);
    store.shuffle("a1", 1).partition(3).commit(store.shuffle("a1", 1).attemptNumber(7L), 2);
  }

  @Test
  void anApplicationKeepsTheSecretItWasRegisteredWith() {
    Secret first = Secret.random();
    store.registerApplication("a1", "alice", first);
    store.registerApplication("a1", "alice", Secret.of(first.copyOfBytes()));
    RequestRejectedException e =
        assertThrows(
            RequestRejectedException.class,
            () -> store.registerApplication("a1", "alice", Secret.random()));
    assertEquals(StatusCode.ACCESS_DENIED, e.status());
    assertEquals(first, store.appSecret("a1"));
    store.unregisterApplication("a1");
    Secret next = Secret.random();
    store.registerApplication("a1", "alice", next);
    assertEquals(next, store.appSecret("a1"), "a new incarnation may bring a new secret");
  }
}
