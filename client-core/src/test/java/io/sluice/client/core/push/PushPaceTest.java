package io.sluice.client.core.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PushPaceTest {
  private static final long MS = 1_000_000L;
  private static final long MIB = 1L << 20;

  private final AtomicLong now = new AtomicLong(1_000 * MS);
  private final PushPace pace = new PushPace(4, Duration.ofMillis(300), MIB, now::get);

  @Test
  void aServerFourTimesSlowerThanTheFastestIsSlow() {
    push(List.of("a"), 4 * MIB, 40);
    push(List.of("b"), 4 * MIB, 50);
    push(List.of("c"), 4 * MIB, 400);

    List<PushPace.Slow> slow = pace.slowServers();

    assertEquals(List.of("c"), ids(slow));
    assertEquals(4 * MIB / 0.4, slow.get(0).bytesPerSecond(), 1e3);
    assertEquals(4 * MIB / 0.05, slow.get(0).referenceBytesPerSecond(), 1e3, "the median's");
  }

  @Test
  void aServerLessThanFourTimesSlowerIsNot() {
    push(List.of("a"), 4 * MIB, 100);
    push(List.of("c"), 4 * MIB, 390);

    assertEquals(List.of(), ids(pace.slowServers()));
  }

  @Test
  void aServerThatAcknowledgesNothingIsSlowOnceItStalledFourTimesAsLong() {
    pace.started(List.of("c"), false);
    push(List.of("a"), 2 * MIB, 20);
    now.addAndGet(300 * MS);
    assertEquals(List.of(), ids(pace.slowServers()), "busy 320 ms only: maybe a cold start");

    // 1.32 s in all, 1.26 s of busy time once faded.
    now.addAndGet(1_000 * MS);

    assertEquals(List.of("c"), ids(pace.slowServers()));
  }

  /**
   * Against a slow reference the wait for a set that acknowledged nothing would outgrow the most
   * busy time that can build up while it fades; it stops short of that.
   */
  @Test
  void aStallIsFoundEvenAgainstASlowReference() {
    PushPace.Timing stalled = pace.started(List.of("c"), false);
    int seconds = 0;
    List<PushPace.Slow> found = List.of();
    // a and b push 100 KiB in every half second: 200 KiB/s, at which 1 MiB takes 20 s four times
    // slower.
    while (found.isEmpty() && seconds < 60) {
      push(List.of("a"), 100 << 10, 500);
      push(List.of("b"), 100 << 10, 500);
      seconds++;
      found = pace.slowServers();
    }

    assertEquals(List.of("c"), ids(found), "not found in a minute");
    assertTrue(seconds > 30, "found after " + seconds + " s");
    stalled.ended(0);
    stalled.ended(0);
    assertEquals(0, pace.outstanding(List.of("c")), "a second end counts nothing");
  }

  /**
   * The only evidence may be of a slow server's pairs: a pair with it that acknowledged nothing yet
   * may be waiting for it, not for its partner.
   */
  @Test
  void aStalledPairIsSlowOnlyOnceTheReferencePaceWouldHaveAcknowledgedTheEvidence() {
    push(List.of("a", "b"), 2 * MIB, 2_000);
    pace.started(List.of("b", "c"), false);
    now.addAndGet(1_500 * MS);
    assertEquals(List.of(), ids(pace.slowServers()), "at a fourth of a-b's pace, 1 MiB takes 4 s");

    now.addAndGet(4_500 * MS);

    assertEquals(List.of("c"), ids(pace.slowServers()));
  }

  @Test
  void withTwoCopiesTheServerInNoFastPairIsSlow() {
    push(List.of("a", "b"), 4 * MIB, 40);
    push(List.of("b", "c"), 4 * MIB, 400);
    push(List.of("a", "c"), 4 * MIB, 500);

    assertEquals(List.of("c"), ids(pace.slowServers()));
  }

  @Test
  void aSlowPairBesideNoFastPairBlamesBothServers() {
    push(List.of("a", "b"), 4 * MIB, 40);
    push(List.of("c", "d"), 4 * MIB, 400);

    assertEquals(List.of("c,d"), ids(pace.slowServers()));
  }

  @Test
  void aSetTooShortlyBusyToBeSlowDoesNotVouchForItsServers() {
    push(List.of("a", "b"), 4 * MIB, 40);
    push(List.of("b", "c"), 4 * MIB, 400);
    // As slow as b-c, with evidence, but busy less than 300 ms: neither slow nor fast.
    push(List.of("a", "c"), MIB, 250);

    assertEquals(List.of("c"), ids(pace.slowServers()));
  }

  /**
   * A slow server's pairs hold the writers for seconds and gather the evidence first, while a
   * healthy pair's short bursts add up to less (seen on a CPU-starved test bed, a link at 1 Mbit/s,
   * 128 KiB pushes): the healthy pair's sample sets the reference, so the slow pair neither passes
   * as healthy against itself nor clears its server, and the slow server's other partner is not
   * blamed.
   */
  @Test
  void aHealthyPairsSampleStandsBesideASlowPairsEvidence() {
    push(List.of("b", "c"), MIB / 5, 4_500);
    push(List.of("a", "c"), 3 * MIB / 5, 200);
    push(List.of("a", "b"), 2 * MIB, 8_000);

    assertEquals(List.of("b"), ids(pace.slowServers()));
  }

  /** The same with one copy: the slow server's evidence alone found nothing before. */
  @Test
  void withOneCopyHealthySamplesBesideASlowServersEvidenceFindIt() {
    push(List.of("c"), 6 * MIB / 5, 4_000);
    push(List.of("a"), 3 * MIB / 10, 30);
    push(List.of("b"), 3 * MIB / 10, 30);

    assertEquals(List.of("c"), ids(pace.slowServers()));
  }

  /**
   * A sample counts only while its set is pushed to: a pace from before the machine got busier (a
   * stage that loads the executor's cores, a shuffle placed elsewhere) must not make the others
   * slow.
   */
  @Test
  void aFadedSampleOfASetNoLongerPushedToMakesNoServerSlow() {
    push(List.of("a", "c"), 4 * MIB, 200);
    now.addAndGet(30_000 * MS);
    push(List.of("a", "b"), 2 * MIB, 1_000);
    push(List.of("b", "c"), 2 * MIB, 1_000);

    assertEquals(List.of(), ids(pace.slowServers()));
  }

  /** Evidence of sets involving a server found slow lately starts no judging of the others. */
  @Test
  void evidenceOfASetWithAServerFoundSlowLatelyStartsNoJudging() {
    push(List.of("a", "b"), 4 * MIB, 400);
    push(List.of("b", "c"), 4 * MIB, 400);
    push(List.of("a", "c"), 4 * MIB, 40);
    assertEquals(List.of("b"), ids(pace.slowServers()));
    now.addAndGet(30_000 * MS);

    push(List.of("a", "b"), 2 * MIB, 1_000);
    push(List.of("a", "c"), 3 * MIB / 10, 30);

    assertEquals(List.of(), ids(pace.slowServers()));
  }

  @Test
  void aServerMuchFasterThanTheOthersMakesNoneOfThemSlow() {
    push(List.of("a"), 4 * MIB, 4);
    push(List.of("b"), 4 * MIB, 40);
    push(List.of("c"), 4 * MIB, 40);
    push(List.of("d"), 4 * MIB, 45);

    assertEquals(List.of(), ids(pace.slowServers()));
  }

  /** With two servers the upper median is the faster one, which a push crossing no link is. */
  @Test
  void withTwoServersOneOnTheWritersHostMakesTheOtherNotSlow() {
    pushOnThisHost(List.of("local"), 4 * MIB, 40);
    push(List.of("b"), 4 * MIB, 400);

    assertEquals(List.of(), ids(pace.slowServers()));
  }

  @Test
  void aServerOnTheWritersHostIsFoundSlowAgainstTheOthers() {
    pushOnThisHost(List.of("local"), 4 * MIB, 400);
    push(List.of("b"), 4 * MIB, 40);

    assertEquals(List.of("local"), ids(pace.slowServers()));
  }

  @Test
  void aSlowServerIsFoundBesideOneOnTheWritersHost() {
    pushOnThisHost(List.of("local"), 4 * MIB, 4);
    push(List.of("b"), 4 * MIB, 40);
    push(List.of("c"), 4 * MIB, 400);

    assertEquals(List.of("c"), ids(pace.slowServers()));
  }

  /**
   * Found slow once (here by its stall), the only remote server must not be found again and again
   * against the local one while it is remembered: it is tried again when the memory ends.
   */
  @Test
  void aRemoteServerFoundSlowIsNotHeldSlowByTheLocalOnesPace() {
    PushPace.Timing stalled = pace.started(List.of("b"), false);
    pushOnThisHost(List.of("local"), 2 * MIB, 20);
    now.addAndGet(1_300 * MS);
    assertEquals(List.of("b"), ids(pace.slowServers()));
    stalled.ended(MIB);

    for (int second = 0; second < 70; second += 2) {
      push(List.of("b"), MIB, 1_000);
      pushOnThisHost(List.of("local"), MIB, 10);
      now.addAndGet(990 * MS);
      pace.slowServers();
    }

    assertFalse(pace.foundSlowRecently("b"), "the finding was renewed against loopback");
    assertEquals(List.of(), ids(pace.slowServers()));
  }

  /** A single host (tests, a laptop): every push crosses no link, and the paces compare as ever. */
  @Test
  void serversAllOnTheWritersHostAreComparedWithEachOther() {
    pushOnThisHost(List.of("a"), 4 * MIB, 40);
    pushOnThisHost(List.of("b"), 4 * MIB, 40);
    pushOnThisHost(List.of("c"), 4 * MIB, 400);

    assertEquals(List.of("c"), ids(pace.slowServers()));
  }

  @Test
  void withoutEnoughBytesAcknowledgedAnywhereNothingIsCompared() {
    push(List.of("a"), MIB / 2, 1);
    push(List.of("c"), MIB / 2, 400);

    assertEquals(List.of(), ids(pace.slowServers()));
  }

  @Test
  void evidenceFadesSoThatASlowServerIsTriedAgain() {
    push(List.of("a"), 4 * MIB, 40);
    push(List.of("b"), 4 * MIB, 40);
    push(List.of("c"), 4 * MIB, 400);
    assertEquals(List.of("c"), ids(pace.slowServers()));

    // 400 ms of busy time halves every 10 s: below 300 ms after about 4.2 s.
    now.addAndGet(5_000 * MS);

    assertEquals(List.of(), ids(pace.slowServers()));
  }

  /** Readers read the replicas of what a slow server took, after the writers moved off it. */
  @Test
  void aServerFoundSlowIsRememberedForAMinuteAfterItsFiguresFaded() {
    push(List.of("a"), 4 * MIB, 40);
    push(List.of("b"), 4 * MIB, 40);
    push(List.of("c"), 4 * MIB, 400);
    assertFalse(pace.foundSlowRecently("c"), "not judged yet");
    assertEquals(List.of("c"), ids(pace.slowServers()));

    now.addAndGet(5_000 * MS);
    assertEquals(List.of(), ids(pace.slowServers()));
    assertTrue(pace.foundSlowRecently("c"));
    assertFalse(pace.foundSlowRecently("a"));

    now.addAndGet(56_000 * MS);
    assertFalse(pace.foundSlowRecently("c"), "61 s after the finding");
  }

  @Test
  void serversBlamedTogetherAreNotRememberedAsSlow() {
    push(List.of("a", "b"), 4 * MIB, 40);
    push(List.of("c", "d"), 4 * MIB, 400);
    assertEquals(List.of("c,d"), ids(pace.slowServers()));

    assertFalse(pace.foundSlowRecently("c"), "c or d is slow, maybe not both");
    assertFalse(pace.foundSlowRecently("d"));
  }

  @Test
  void aServerFoundSlowIsRememberedThoughItsPaceLooksHealthyAgain() {
    push(List.of("a"), 4 * MIB, 40);
    push(List.of("b"), 4 * MIB, 40);
    push(List.of("c"), 4 * MIB, 400);
    assertEquals(List.of("c"), ids(pace.slowServers()));

    // 40 MiB at a's pace outweigh the slow 4 MiB: healthy, or the others sank with it.
    push(List.of("c"), 40 * MIB, 400);
    now.addAndGet(100 * MS);
    assertEquals(List.of(), ids(pace.slowServers()));

    assertTrue(pace.foundSlowRecently("c"));
  }

  /**
   * With two copies, the partners of a slow server wait for it (their pushes to it as a replica)
   * and may stall: the pace of sets involving it sets no reference for them.
   */
  @Test
  void aServerHeldUpByASlowServerIsNotBlamed() {
    push(List.of("a", "b"), 4 * MIB, 400);
    push(List.of("b", "c"), 4 * MIB, 400);
    push(List.of("a", "c"), 4 * MIB, 40);
    assertEquals(List.of("b"), ids(pace.slowServers()));

    // Pushes to a-b batched before the move are answered at once; a-c stalls.
    push(List.of("a", "b"), 40 * MIB, 400);
    pace.started(List.of("a", "c"), false);
    now.addAndGet(1_500 * MS);

    // Against a-b's pace, a-c and b-c would be slow, and c in no fast set.
    assertEquals(List.of(), ids(pace.slowServers()));
    assertTrue(pace.foundSlowRecently("b"));
    assertFalse(pace.foundSlowRecently("c"));
  }

  @Test
  void pushesInFlightTogetherCountTheirTimeOnce() {
    PushPace.Timing first = pace.started(List.of("a"), false);
    PushPace.Timing second = pace.started(List.of("a"), false);
    now.addAndGet(100 * MS);
    first.ended(2 * MIB);
    second.ended(2 * MIB);
    push(List.of("b"), 4 * MIB, 100);
    push(List.of("c"), 4 * MIB, 450);

    // a and b: 4 MiB in 100 ms, c: 4 MiB in 450 ms, 4.5 times slower; counted per push, a's
    // 200 ms would make the median a's pace, and c 2.25 times slower.
    assertEquals(List.of("c"), ids(pace.slowServers()));
    assertEquals(0, pace.outstanding(List.of("a")));
  }

  /**
   * A long push's busy time fades while it is in flight; were its bytes to arrive whole at its end,
   * judging it often would overstate its pace (9 MiB/s would look like 11.7).
   */
  @Test
  void judgingWhileALongPushIsInFlightDoesNotOverstateItsPace() {
    PushPace patient = new PushPace(4, Duration.ofSeconds(3), MIB, now::get);
    push(patient, List.of("a"), false, 4 * MIB, 100);
    push(patient, List.of("b"), false, 4 * MIB, 100);
    PushPace.Timing slow = patient.started(List.of("c"), false);
    for (int i = 0; i < 80; i++) {
      now.addAndGet(100 * MS);
      assertEquals(List.of(), ids(patient.slowServers()), "c has not stalled for 12 s");
    }
    slow.ended(72 * MIB);
    now.addAndGet(100 * MS);

    List<PushPace.Slow> found = patient.slowServers();

    assertEquals(List.of("c"), ids(found), "9 MiB/s against 40");
    assertEquals(9.0 * MIB, found.get(0).bytesPerSecond(), 0.01 * MIB);
  }

  @Test
  void aRatioOfZeroFindsNothing() {
    PushPace off = new PushPace(0, Duration.ofMillis(300), MIB, now::get);
    push(off, List.of("a"), false, 4 * MIB, 10);
    push(off, List.of("c"), false, 1, 5_000);

    assertEquals(List.of(), off.slowServers());
  }

  private void push(List<String> servers, long bytes, long millis) {
    push(servers, false, bytes, millis);
  }

  private void pushOnThisHost(List<String> servers, long bytes, long millis) {
    push(servers, true, bytes, millis);
  }

  private void push(List<String> servers, boolean onThisHost, long bytes, long millis) {
    push(pace, servers, onThisHost, bytes, millis);
  }

  private void push(
      PushPace on, List<String> servers, boolean onThisHost, long bytes, long millis) {
    PushPace.Timing timing = on.started(servers, onThisHost);
    now.addAndGet(millis * MS);
    timing.ended(bytes);
  }

  private static List<String> ids(List<PushPace.Slow> slow) {
    return slow.stream().map(s -> String.join(",", s.servers())).sorted().toList();
  }
}
