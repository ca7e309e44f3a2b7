package io.sluice.common.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CoordinatorAddressTest {

  @Test
  void listsAreReadInOrder() {
    assertEquals(
        List.of(
            new CoordinatorAddress("coord-1", 19997),
            new CoordinatorAddress("10.0.0.2", 20000),
            new CoordinatorAddress("::1", 19997)),
        CoordinatorAddress.parseList(
            " coord-1:19997, 10.0.0.2:20000 ,[::1]:19997", "server.coordinators"));
    assertEquals(
        List.of(new CoordinatorAddress("c", 1)),
        CoordinatorAddress.parseList(List.of("c:1"), "key"));
  }

  @Test
  void anIpv6AddressPrintsInBrackets() {
    assertEquals("[::1]:19997", new CoordinatorAddress("::1", 19997).toString());
    assertEquals("coord:19997", new CoordinatorAddress("coord", 19997).toString());
  }

  @ParameterizedTest(name = "''{0}''")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "coord         | it has no port",
        "coord:        | port '' is not a number",
        "coord:abc     | port 'abc' is not a number",
        "coord:0       | port 0 is not in 1..65535",
        "coord:65536   | port 65536 is not in 1..65535",
        ":19997        | it has no host",
        "::1:19997     | write an IPv6 address in brackets",
        "[::1]19997    | an IPv6 address must be followed by ]:port",
        "\"co ord:1\"  | the host contains ' '",
        "http://c:1    | write an IPv6 address in brackets"
      })
  void badEntriesSayWhatIsWrong(String entry, String problem) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CoordinatorAddress.parse(entry, "server.coordinators"));

    assertTrue(e.getMessage().contains(problem), e.getMessage());
    assertTrue(e.getMessage().contains("server.coordinators"), e.getMessage());
    assertTrue(e.getMessage().contains("host:port"), e.getMessage());
  }

  @Test
  void emptyListsEmptyEntriesAndDuplicatesAreErrors() {
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> CoordinatorAddress.parseList("  ", "spark.sluice.coordinators"))
            .getMessage()
            .contains("No coordinator listed in spark.sluice.coordinators"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class, () -> CoordinatorAddress.parseList("a:1,,b:2", "k"))
            .getMessage()
            .contains("it is empty"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class, () -> CoordinatorAddress.parseList("a:1, a:1", "k"))
            .getMessage()
            .contains("listed twice"));
  }
}
