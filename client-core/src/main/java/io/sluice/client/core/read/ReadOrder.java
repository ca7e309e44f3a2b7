package io.sluice.client.core.read;

import io.sluice.common.protocol.ServerAddress;
import java.util.List;
import java.util.function.Predicate;

/**
 * Which server of a location's chain a reader tries first; it goes on around the chain from there
 * when a server fails. A task's first attempt starts at the primary, its second (a speculative
 * copy, a retry) at the next server, and so on, so that a copy of a task held up by a slow server
 * does not wait for the same server again and two copies share the load. A server this JVM found
 * slow is passed over, where the chain has another that is not.
 *
 * @param taskAttempt the reading task's attempt number, 0 for its first
 * @param slow whether a server id was found slow
 */
public record ReadOrder(int taskAttempt, Predicate<String> slow) {
  /** A first attempt that knows of no slow server: every chain from its primary. */
  public static final ReadOrder PRIMARY_FIRST = new ReadOrder(0, serverId -> false);

  /** The index in {@code chain} of the server to read first. */
  int firstServer(List<ServerAddress> chain) {
    int start = Math.floorMod(taskAttempt, chain.size());
    for (int i = 0; i < chain.size(); i++) {
      int candidate = (start + i) % chain.size();
      if (!slow.test(chain.get(candidate).serverId())) {
        return candidate;
      }
    }
    return start;
  }
}
