package io.sluice.coordinator.assignment;

import static io.sluice.common.protocol.ProtocolVersion.CURRENT;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.GetAssignmentRequest;
import io.sluice.coordinator.RequestRefusedException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AssignmentLimitsTest {
  private final AssignmentLimits limits = new AssignmentLimits(1 << 20, 3, 64L << 20);

  @ParameterizedTest(name = "{0} partitions, {1} copies: {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "0          | 1 | at least 1 partition",
        "-1         | 1 | at least 1 partition",
        "-2147483648| 1 | at least 1 partition",
        "16777217   | 1 | coordinator.assignment.max.partitions",
        "2147483647 | 1 | coordinator.assignment.max.partitions",
        "1048577    | 1 | coordinator.assignment.max.partitions",
        "10         | 0 | replica count 0 is not in 1..3",
        "10         | -1| replica count -1 is not in 1..3",
        "10         | 4 | replica count 4 is not in 1..3"
      })
  void absurdCountsAreInvalid(int partitions, int copies, String expected) {
    RequestRefusedException e =
        assertThrows(
            RequestRefusedException.class,
            () -> limits.check(request("app", 0, partitions, copies, List.of()), CURRENT));

    assertEquals(StatusCode.INVALID_REQUEST, e.status());
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  @Test
  void aNegativeShuffleIdAnEmptyAppOrAnEmptyTagAreInvalid() {
    for (GetAssignmentRequest bad :
        List.of(
            request("app", -1, 10, 1, List.of()),
            request("", 0, 10, 1, List.of()),
            request("app", 0, 10, 1, List.of("ssd", "")))) {
      RequestRefusedException e =
          assertThrows(RequestRefusedException.class, () -> limits.check(bad, CURRENT));
      assertEquals(StatusCode.INVALID_REQUEST, e.status(), bad.toString());
    }
  }

  @Test
  void anAnswerTooLargeForOneFrameOfTheOldLayoutIsRefusedUpFront() {
    AssignmentLimits small = new AssignmentLimits(Integer.MAX_VALUE, 3, 1 << 20);

    RequestRefusedException e =
        assertThrows(
            RequestRefusedException.class,
            () -> small.check(request("app", 0, 200_000, 2, List.of()), 5));

    assertTrue(e.getMessage().contains("transport.max.frame.size"), e.getMessage());
    assertDoesNotThrow(
        () -> small.check(request("app", 0, Integer.MAX_VALUE, 3, List.of()), CURRENT),
        "runs of partitions fit a frame whatever their count");
  }

  @Test
  void theLargestAllowedRequestPasses() {
    assertDoesNotThrow(() -> limits.check(request("app", 0, 1 << 20, 3, List.of("ssd")), 5));
  }

  private static GetAssignmentRequest request(
      String app, int shuffle, int partitions, int copies, List<String> tags) {
    return new GetAssignmentRequest(1, app, shuffle, partitions, copies, tags, List.of());
  }
}
