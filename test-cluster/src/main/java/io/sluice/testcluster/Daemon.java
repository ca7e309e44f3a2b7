package io.sluice.testcluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A coordinator or shuffle server process that a {@link DaemonLauncher} started: its process id,
 * its log, and how it stops as an operator stops it.
 */
public final class Daemon {
  /** The operator's way to stop the daemon: SIGTERM, then waiting while it drains. */
  @FunctionalInterface
  public interface Stop {
    void run() throws IOException, InterruptedException;
  }

  private final String name;
  private final long pid;
  private final Path log;
  private final Stop stop;

  public Daemon(String name, long pid, Path log, Stop stop) {
    this.name = name;
    this.pid = pid;
    this.log = log;
    this.stop = stop;
  }

  public long pid() {
    return pid;
  }

  /** The daemon's log file (log4j's, not the JVM's standard output). */
  public Path log() {
    return log;
  }

  public boolean isAlive() {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  /** Stops the daemon as an operator would and waits until it has exited. */
  public void stop() throws IOException, InterruptedException {
    if (isAlive()) {
      stop.run();
      awaitExit("stopping");
    }
  }

  /** Kills the daemon with SIGKILL ({@code kill -9}) and waits until it has exited. */
  public void kill() throws IOException, InterruptedException {
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    awaitExit("SIGKILL");
  }

  /** Sends {@code signal} ({@code STOP}, {@code CONT}) to the daemon. */
  public void signal(String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + signal + " " + pid + " (" + name + ") failed");
    }
  }

  private void awaitExit(String after) throws IOException, InterruptedException {
    ProcessHandle handle = ProcessHandle.of(pid).orElse(null);
    if (handle == null) {
      return;
    }
    try {
      handle.onExit().get(60, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new IOException(name + " (process " + pid + ") still runs 60 s after " + after);
    } catch (ExecutionException e) {
      throw new IOException(name + " (process " + pid + "): " + e.getCause(), e);
    }
  }

  @Override
  public String toString() {
    return name + " (process " + pid + ")";
  }
}
