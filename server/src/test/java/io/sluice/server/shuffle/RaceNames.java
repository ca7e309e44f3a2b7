package io.sluice.server.shuffle;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Names of applications and shuffles for race tests, by slot: each slot names one application (or
 * one shuffle of it) at a time, and a new one once it was unregistered, never the old one again, as
 * in Spark. Registrations run under a slot's read lock and only while their names are current;
 * retiring a name takes the write lock, so that no name is registered again once its unregistration
 * began. Pushes and reads take no lock: they race everything.
 */
public final class RaceNames {
  /** Work that may throw. */
  public interface Action {
    void run() throws Exception;
  }

  private final String prefix;
  private final int shufflesPerApp;
  private final int[] appGeneration;
  private final int[][] shuffleGeneration;
  private final ReentrantReadWriteLock[] appLocks;
  private final ReentrantReadWriteLock[][] shuffleLocks;

  public RaceNames(String prefix, int apps, int shufflesPerApp) {
    this.prefix = prefix;
    this.shufflesPerApp = shufflesPerApp;
    this.appGeneration = new int[apps];
    this.shuffleGeneration = new int[apps][shufflesPerApp];
    this.appLocks = new ReentrantReadWriteLock[apps];
    this.shuffleLocks = new ReentrantReadWriteLock[apps][shufflesPerApp];
    for (int a = 0; a < apps; a++) {
      appLocks[a] = new ReentrantReadWriteLock();
      for (int s = 0; s < shufflesPerApp; s++) {
        shuffleLocks[a][s] = new ReentrantReadWriteLock();
      }
    }
  }

  /** The application slot {@code slot} names now. */
  public synchronized String app(int slot) {
    return prefix + "-" + slot + "-" + appGeneration[slot];
  }

  /** The id shuffle slot {@code slot} of application slot {@code appSlot} names now. */
  public synchronized int shuffle(int appSlot, int slot) {
    return shuffleGeneration[appSlot][slot] * shufflesPerApp + slot;
  }

  /** Registers {@code app} if it is still the name of its slot. */
  public void registerApp(int appSlot, String app, Action register) throws Exception {
    appLocks[appSlot].readLock().lock();
    try {
      if (app.equals(app(appSlot))) {
        register.run();
      }
    } finally {
      appLocks[appSlot].readLock().unlock();
    }
  }

  /** Registers shuffle {@code shuffleId} of {@code app} if both are still current. */
  public void registerShuffle(int appSlot, int slot, String app, int shuffleId, Action register)
      throws Exception {
    appLocks[appSlot].readLock().lock();
    shuffleLocks[appSlot][slot].readLock().lock();
    try {
      if (app.equals(app(appSlot)) && shuffleId == shuffle(appSlot, slot)) {
        register.run();
      }
    } finally {
      shuffleLocks[appSlot][slot].readLock().unlock();
      appLocks[appSlot].readLock().unlock();
    }
  }

  /**
   * Gives shuffle slot {@code slot} a new name if it still names {@code shuffleId}; unregisters.
   */
  public void retireShuffle(int appSlot, int slot, int shuffleId, Action unregister)
      throws Exception {
    shuffleLocks[appSlot][slot].writeLock().lock();
    try {
      synchronized (this) {
        if (shuffleGeneration[appSlot][slot] * shufflesPerApp + slot == shuffleId) {
          shuffleGeneration[appSlot][slot]++;
        }
      }
      unregister.run();
    } finally {
      shuffleLocks[appSlot][slot].writeLock().unlock();
    }
  }

  /** Gives application slot {@code slot} a new name if it still names {@code app}; unregisters. */
  public void retireApp(int slot, String app, Action unregister) throws Exception {
    appLocks[slot].writeLock().lock();
    try {
      synchronized (this) {
        if (app.equals(prefix + "-" + slot + "-" + appGeneration[slot])) {
          appGeneration[slot]++;
        }
      }
      unregister.run();
    } finally {
      appLocks[slot].writeLock().unlock();
    }
  }
}
