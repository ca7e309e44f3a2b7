package io.sluice.testcluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A coordinator or shuffle server process that a {@link DaemonLauncher} started: its process, its
 * log, and how it stops as an operator stops it. The process is held as a {@link ProcessHandle}
 * taken while it ran, which knows its start time: a later process that reuses the pid is never
 * signalled.
 */
public final class Daemon {
  /** The operator's way to stop the daemon: SIGTERM, then waiting while it drains. */
  @FunctionalInterface
  public interface Stop {
    void run() throws IOException, InterruptedException;
  }

  private final String name;
  private final ProcessHandle process;
  private final Path log;
  private final Stop stop;

  /**
   * @param process the daemon's process, taken while it runs
   */
  public Daemon(String name, ProcessHandle process, Path log, Stop stop) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.stop = stop;
  }

  public long pid() {
    return process.pid();
  }

  /** The daemon's log file (log4j's, not the JVM's standard output). */
  public Path log() {
    return log;
  }

  public boolean isAlive() {
    return process.isAlive();
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
    process.destroyForcibly();
    awaitExit("SIGKILL");
  }

  /** Kills the daemon with SIGKILL without waiting, for a caller that was interrupted. */
  void killNow() {
    process.destroyForcibly();
  }

  /** Sends {@code signal} ({@code STOP}, {@code CONT}) to the daemon, while it runs. */
  public void signal(String signal) throws IOException, InterruptedException {
    if (!isAlive()) {
      throw new IOException(this + " is not running: cannot send it SIG" + signal);
    }
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + signal + " " + pid() + " (" + name + ") failed");
    }
  }

  private void awaitExit(String after) throws IOException, InterruptedException {
    try {
      process.onExit().get(60, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new IOException(this + " still runs 60 s after " + after);
    } catch (ExecutionException e) {
      throw new IOException(this + ": " + e.getCause(), e);
    }
  }

  @Override
  public String toString() {
    return name + " (process " + pid() + ")";
  }
}
