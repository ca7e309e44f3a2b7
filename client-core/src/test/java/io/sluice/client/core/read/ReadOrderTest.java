package io.sluice.client.core.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.common.protocol.ServerAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReadOrderTest {
  private static final List<ServerAddress> PAIR = chain("a", "b");
  private static final List<ServerAddress> TRIPLE = chain("a", "b", "c");

  @Test
  void eachLaterAttemptStartsOneServerFurtherAroundTheChain() {
    assertEquals(0, order(0).firstServer(PAIR));
    assertEquals(1, order(1).firstServer(PAIR));
    assertEquals(0, order(2).firstServer(PAIR));
    assertEquals(2, order(2).firstServer(TRIPLE));
    assertEquals(0, order(3).firstServer(TRIPLE));
    assertEquals(0, order(5).firstServer(chain("a")), "a chain of one has one place to start");
  }

  @Test
  void aServerFoundSlowIsPassedOverForTheNextOneAroundTheChain() {
    assertEquals(1, order(0, "a").firstServer(PAIR));
    assertEquals(0, order(1, "b").firstServer(PAIR));
    assertEquals(2, order(1, "b").firstServer(TRIPLE));
    assertEquals(0, order(1, "b", "c").firstServer(TRIPLE));
  }

  @Test
  void whenEveryServerWasFoundSlowTheAttemptStartsWhereItWould() {
    assertEquals(1, order(1, "a", "b").firstServer(PAIR));
    assertEquals(0, order(0, "a").firstServer(chain("a")));
  }

  private static ReadOrder order(int attempt, String... slow) {
    return new ReadOrder(attempt, Set.of(slow)::contains);
  }

  private static List<ServerAddress> chain(String... ids) {
    return Arrays.stream(ids).map(id -> new ServerAddress(id, "127.0.0.1", 9000)).toList();
  }
}
