package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.protocol.message.CommitMapOutputRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.TransportClient;
import io.sluice.fixtures.Await;
import io.sluice.server.storage.LocalDisk;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deleting a large shuffle's files never holds up another application's commits: the unregister is
 * answered as soon as the application's directories are moved aside, and the files are deleted in
 * the background while commits keep being served.
 */
class UnregisterLatencyTest {
  private static final int DIRS = 100;
  private static final int FILES_PER_DIR = 200;

  @TempDir Path dir;

  @Test
  void aLargeUnregisterDoesNotDelayOtherApplicationsCommits() throws Exception {
    try (ShuffleServer server = new ShuffleServer(TestServers.conf(dir, Map.of()));
        ServerTestClient admin = new ServerTestClient(server);
        ServerTestClient committer = new ServerTestClient(server)) {
      admin.registerApp("app-large");
      admin.registerShuffle("app-large", 0, 1);
      // The files of a large shuffle, laid out where the server keeps that shuffle's files.
      for (LocalDisk disk : server.disks().disks()) {
        server.disks().createShuffleDir(disk, "app-large", 0);
        Path shuffle = server.disks().shuffleDir(disk, "app-large", 0);
        for (int d = 0; d < DIRS; d++) {
          Path sub = Files.createDirectories(shuffle.resolve("part-" + d));
          for (int f = 0; f < FILES_PER_DIR; f++) {
            Files.write(sub.resolve(f + ".data"), new byte[] {1});
          }
        }
      }
      admin.registerApp("app-busy");
      admin.registerShuffle("app-busy", 0, 1);

      AtomicBoolean committing = new AtomicBoolean(true);
      AtomicLong slowestCommitNanos = new AtomicLong();
      AtomicLong commits = new AtomicLong();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread commitLoop =
          new Thread(
              () -> {
                long attempt = 0;
                try {
                  while (committing.get()) {
                    long start = System.nanoTime();
                    committer.send(
                        new CommitMapOutputRequest(
                            TransportClient.nextRequestId(),
                            "app-busy",
                            0,
                            0,
                            attempt++,
                            new int[] {0},
                            new int[] {1}),
                        StatusResponse.class);
                    slowestCommitNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
                    commits.incrementAndGet();
                  }
                } catch (Throwable t) {
                  failure.set(t);
                }
              },
              "commit-loop");
      commitLoop.start();
      Await.until(() -> commits.get() >= 10 || failure.get() != null, "commits to flow");
      assertTrue(failure.get() == null, "commits failed: " + failure.get());

      long start = System.nanoTime();
      admin.unregisterApp("app-large");
      long unregisterNanos = System.nanoTime() - start;
      assertFalse(
          trashEmpty(server),
          "the unregister was answered while the files moved aside were still being deleted");
      // A commit of the other application completes while the deletion goes on: read the count
      // before looking at the trash, so a count that grew grew while files were still there.
      long commitsAtAnswer = commits.get();
      boolean committedWhileDeleting = false;
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
      while (System.nanoTime() < deadline) {
        long n = commits.get();
        if (trashEmpty(server)) {
          break;
        }
        if (n > commitsAtAnswer) {
          committedWhileDeleting = true;
          break;
        }
        Thread.sleep(1);
      }
      assertTrue(
          committedWhileDeleting,
          "another application's commit completed while the "
              + "files were being deleted; commits failed: "
              + failure.get());
      long commitsBefore = commits.get();
      assertTrue(server.disks().awaitDeletions(Duration.ofMinutes(2)), "deletion finished");
      long deletionNanos = System.nanoTime() - start;
      Await.until(() -> commits.get() > commitsBefore, "a commit after the deletion");
      committing.set(false);
      commitLoop.join(TimeUnit.MINUTES.toMillis(1));

      System.out.printf(
          "deleting %d files: unregister answered in %d ms, files gone after %d ms; "
              + "%d commits of another application meanwhile, the slowest took %d ms%n",
          DIRS * FILES_PER_DIR * server.disks().disks().size(),
          TimeUnit.NANOSECONDS.toMillis(unregisterNanos),
          TimeUnit.NANOSECONDS.toMillis(deletionNanos),
          commits.get() - commitsAtAnswer,
          TimeUnit.NANOSECONDS.toMillis(slowestCommitNanos.get()));
      assertTrue(failure.get() == null, "commits failed: " + failure.get());
      for (LocalDisk disk : server.disks().disks()) {
        assertTrue(!Files.exists(disk.root().resolve("app-large")), "moved aside and deleted");
      }
    }
  }

  /** Whether no disk's {@code sluice+trash} holds anything still to be deleted. */
  private static boolean trashEmpty(ShuffleServer server) throws IOException {
    for (LocalDisk disk : server.disks().disks()) {
      Path trash = disk.root().resolve("sluice+trash");
      if (Files.isDirectory(trash)) {
        try (Stream<Path> left = Files.list(trash)) {
          if (left.findAny().isPresent()) {
            return false;
          }
        }
      }
    }
    return true;
  }
}
