package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.fixtures.Await;
import io.sluice.fixtures.Daemons;
import io.sluice.testcluster.ProcessCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * The fault cases of {@link ServerLossTest} and {@link ExecutorLossTest} on every Spark line, with
 * real kills: the examples jar's {@code FaultJob} submitted with SparkSubmit (only that line's
 * client jar added) holds one task at a known point, the test kills a shuffle server process or an
 * executor JVM with SIGKILL, and lets the task go on. The job prints its answer beside the answer
 * it computed itself, and Spark's own view of the run: every stage's submissions, the tasks it
 * started, the tasks that failed.
 *
 * <ul>
 *   <li>A server of three killed while the maps push, with two copies: the right answer, no stage
 *       submitted twice.
 *   <li>The same with one copy: the right answer after exactly one re-run of the map stage.
 *   <li>A server killed while the reducers read, with two copies: no stage re-run, no task fails;
 *       with one copy (Spark 4, 3.4 and 3.3), exactly one re-run of the map stage.
 *   <li>A server frozen (SIGSTOP) while the maps push, with two copies (Spark 4, 3.4 and 3.3): no
 *       stage re-run, no task fails.
 *   <li>With two copies, a server frozen while the reducers read, one frozen mid-map and resumed
 *       mid-reduce, one restarted on its port mid-map, one drained (SIGTERM) mid-map, and every
 *       server restarted in turn mid-map and again mid-reduce: no stage re-run (and no task fails
 *       where the case says so). With one copy, a server frozen mid-map: exactly one re-run of the
 *       map stage. (Spark 4, 3.4 and 3.3; Spark 3.5 runs these in-process in {@link
 *       ServerLossTest}.)
 *   <li>An executor of a {@code local-cluster} killed while the reducers read (Spark 4, 3.4 and
 *       3.3; Spark 3.5 runs it in-process in {@link ExecutorLossTest}): no map task runs twice.
 *   <li>Dynamic allocation on Spark 3.3 and 3.4 without shuffle tracking: refused by Spark, with
 *       Sluice's warning naming the setting; with it, the job runs through Sluice.
 * </ul>
 *
 * <p>The default build runs the dynamic allocation case on both lines it applies to, and on each
 * line a case with two copies and one with one copy (the executor's loss on Spark 3.4), each case
 * on one line; the cases of two copies beyond a kill and a freeze (a frozen reader's server, a
 * resumed, restarted, drained server, a rolling restart) run on these lines only with {@code
 * -Pspark-lines-full}, which runs every case on every line ({@link SparkLinesSource}), and on Spark
 * 3.5 in-process ({@link ServerLossTest}) by default.
 *
 * <p>Three server processes and a coordinator are shared by the class; a killed or drained server
 * is started again (on its port), and a frozen one resumed, before the next test.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SparkLinesFaultTest {
  private static final String JOB = "io.sluice.examples.FaultJob";

  /** FaultJob's shuffle: 8 map tasks (stage 0), 8 reduce tasks (stage 1). */
  private static final int MAPS = 8;

  private static final int VICTIM = 1;
  private static final Duration JOB_TIMEOUT = Duration.ofMinutes(2);

  private static ProcessCluster cluster;

  /** Holds a directory per job, where the job and the test leave each other marker files. */
  @TempDir static Path jobDirs;

  private final List<Integer> killed = new ArrayList<>();
  private final List<Integer> frozen = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    cluster = ProcessCluster.forTests(3).start();
  }

  @AfterAll
  static void stop() throws Exception {
    cluster.close();
  }

  @AfterEach
  void restartKilledServers() throws Exception {
    for (int i : frozen) {
      cluster.thaw(i);
    }
    for (int i : killed) {
      cluster.start(i);
    }
    if (!frozen.isEmpty()) {
      cluster.awaitLive(3);
    }
    frozen.clear();
    killed.clear();
  }

  /** Spark 3.5 runs this case in-process too, in {@link ServerLossTest}. */
  @ParameterizedTest(name = "Spark {0}")
  @SparkLinesSource(
      every = {"3.5", "4", "3.4", "3.3"},
      byDefault = "4")
  void withTwoCopiesAServerKilledDuringTheMapStageRerunsNoStage(String line) throws Exception {
    String out = runKillingAServer(line, 2, "map");
    assertNoStageRerunNorFailedTask(out);
  }

  @ParameterizedTest(name = "Spark {0}")
  @SparkLinesSource(
      every = {"3.5", "4", "3.4", "3.3"},
      byDefault = "3.3")
  void withOneCopyAServerKilledDuringTheMapStageRerunsTheMapStageOnce(String line)
      throws Exception {
    String out = runKillingAServer(line, 1, "map");
    assertMapStageRerunOnce(out);
  }

  @ParameterizedTest(name = "Spark {0}")
  @SparkLinesSource(
      every = {"3.5", "4", "3.4", "3.3"},
      byDefault = "3.4")
  void withTwoCopiesAServerKilledDuringTheReduceStageRerunsNoStageAndFailsNoTask(String line)
      throws Exception {
    String out = runKillingAServer(line, 2, "reduce");
    assertNoStageRerunNorFailedTask(out);
  }

  /** Spark 3.5 runs this case in-process, in {@link ServerLossTest}. */
  @ParameterizedTest(name = "Spark {0}")
  @SparkLinesSource(
      every = {"4", "3.4", "3.3"},
      byDefault = "4")
  void withOneCopyAServerKilledDuringTheReduceStageRerunsTheMapStageOnce(String line)
      throws Exception {
    String out = runKillingAServer(line, 1, "reduce");
    assertMapStageRerunOnce(out);
  }

  /**
   * A frozen server (SIGSTOP: a long pause, a hung disk) keeps its connections open and answers
   * nothing: the writers give it up within {@code transport.liveness.timeout} and move its
   * partitions to the other servers. Spark 3.5 runs this and the other frozen cases in-process, in
   * {@link ServerLossTest}.
   */
  @ParameterizedTest(name = "Spark {0}")
  @SparkLinesSource(
      every = {"4", "3.4", "3.3"},
      byDefault = "3.3")
  void withTwoCopiesAServerFrozenDuringTheMapStageRerunsNoStage(String line) throws Exception {
    String out = runDisturbingAServer(line, 2, "map", this::freeze);
    assertNoStageRerunNorFailedTask(out);
  }

  /** Readers leave the frozen server for the other copy. */
  @ParameterizedTest(name = "Spark {0}", allowZeroInvocations = true)
  @SparkLinesSource(
      every = {"4", "3.4", "3.3"},
      onlyInFull = true)
  void withTwoCopiesAServerFrozenDuringTheReduceStageRerunsNoStageAndFailsNoTask(String line)
      throws Exception {
    String out = runDisturbingAServer(line, 2, "reduce", this::freeze);
    assertNoStageRerunNorFailedTask(out);
  }

  /** The finished maps' only copy is on the frozen server: Spark runs the map stage again. */
  @ParameterizedTest(name = "Spark {0}")
  @SparkLinesSource(
      every = {"4", "3.4", "3.3"},
      byDefault = "3.4")
  void withOneCopyAServerFrozenDuringTheMapStageRerunsTheMapStageOnce(String line)
      throws Exception {
    String out = runDisturbingAServer(line, 1, "map", this::freeze);
    assertMapStageRerunOnce(out);
  }

  /**
   * A long pause that ends: the server frozen mid-map is resumed while a reduce task is held after
   * its first record. It missed blocks and commits while it was given up, and readers that reach it
   * again must neither take its partial copy for the whole nor keep a block twice.
   */
  @ParameterizedTest(name = "Spark {0}", allowZeroInvocations = true)
  @SparkLinesSource(
      every = {"4", "3.4", "3.3"},
      onlyInFull = true)
  void withTwoCopiesAServerFrozenMidMapAndResumedMidReduceServesNoStaleOrDuplicateData(String line)
      throws Exception {
    String out =
        runDisturbingServers(
            line, 2, List.of("map", "reduce"), List.<Fault>of(this::freeze, this::thaw));
    assertNoStageRerun(out);
  }

  /**
   * Killed and started again on its port while a map is half-way through its pushes: the held map
   * goes on to the other servers; the next application's data goes to the restarted server again.
   */
  @ParameterizedTest(name = "Spark {0}", allowZeroInvocations = true)
  @SparkLinesSource(
      every = {"4", "3.4", "3.3"},
      onlyInFull = true)
  void withTwoCopiesAServerRestartedOnItsPortMidMapRerunsNoStageAndComesBackIntoUse(String line)
      throws Exception {
    String out = runDisturbingAServer(line, 2, "map", this::restart);
    assertNoStageRerun(out);
    double before = cluster.metric(VICTIM, "sluice_server_pushed_bytes_total");
    Daemons.Result next =
        SubmittedJob.start(
                jobDirs,
                line,
                "local[2]",
                "io.sluice.examples.ShuffleExample",
                conf(2),
                List.of("20000", "100"))
            .await(JOB_TIMEOUT);
    assertEquals(0, next.exitCode(), next.output());
    assertTrue(next.output().contains("Result: 100 keys"), next.output());
    assertTrue(
        cluster.metric(VICTIM, "sluice_server_pushed_bytes_total") > before,
        "the restarted server takes data again");
  }

  /** Stopped as {@code bin/stop-server.sh} stops it (it drains), and started again. */
  @ParameterizedTest(name = "Spark {0}", allowZeroInvocations = true)
  @SparkLinesSource(
      every = {"4", "3.4", "3.3"},
      onlyInFull = true)
  void withTwoCopiesADrainingServerStopsMidMapWithoutAStageRerun(String line) throws Exception {
    String out = runDisturbingAServer(line, 2, "map", this::restartDrained);
    assertNoStageRerun(out);
  }

  /**
   * Every server stopped (drained) and started again in turn while a map is half-way through its
   * pushes, and again while a reduce task is held after its first record: nothing lost, no task
   * fails, and every server served what it held again after its restart.
   */
  @ParameterizedTest(name = "Spark {0}", allowZeroInvocations = true)
  @SparkLinesSource(
      every = {"4", "3.4", "3.3"},
      onlyInFull = true)
  void withTwoCopiesARollingRestartOfEveryServerLosesNothingAndFailsNoTask(String line)
      throws Exception {
    Fault everyServer =
        ignored -> {
          for (int i = 0; i < cluster.size(); i++) {
            restartDrained(i);
          }
        };
    String out =
        runDisturbingServers(line, 2, List.of("map", "reduce"), List.of(everyServer, everyServer));
    assertNoStageRerunNorFailedTask(out);
    for (int i = 0; i < cluster.size(); i++) {
      assertTrue(
          cluster.metric(i, "sluice_server_recovered_partitions_total") >= 1,
          "server " + i + " served its data again after its restart");
    }
  }

  /**
   * Executors in JVMs of their own (Spark 3.5 runs the same case in-process, in {@link
   * ExecutorLossTest}): the executor of a reduce task that has started reading is killed; the task
   * runs again elsewhere and reads the map output from the servers, so no map task runs twice.
   * Spark 3.3 and 3.4, which cannot be told that shuffle storage is reliable, remove the lost
   * executor's map outputs, but Sluice registers its outputs at a synthetic executor ({@code
   * MapOutputLocation}), so the same holds there.
   */
  @ParameterizedTest(name = "Spark {0}")
  @SparkLinesSource(
      every = {"4", "3.4", "3.3"},
      byDefault = "3.4")
  void losingAnExecutorDuringTheReduceStageRerunsNoMapTask(String line) throws Exception {
    Path dir = Files.createTempDirectory(jobDirs, "executor-loss");
    Daemons.Running job =
        SubmittedJob.start(
            jobDirs,
            line,
            "local-cluster[2,1,1024]",
            JOB,
            conf(2, "--conf", "spark.executor.memory=512m", "--conf", "spark.task.maxFailures=4"),
            List.of(dir.toString(), "reduce"));
    try {
      awaitHeld(job, dir, "reduce");
      String[] held = Files.readString(dir.resolve("reduce.held")).trim().split(" ");
      ProcessHandle executor = ProcessHandle.of(Long.parseLong(held[0])).orElseThrow();
      assertTrue(
          executor.info().commandLine().orElse("").contains("CoarseGrainedExecutorBackend"),
          "the held reduce task runs in an executor JVM: " + executor.info());
      executor.destroyForcibly();
      executor.onExit().get(30, TimeUnit.SECONDS);
      Files.writeString(dir.resolve("reduce.go"), "");
      String out = answered(job, line);
      // The killed executor had run map tasks: the built-in shuffle would have lost their output.
      Matcher ranMaps =
          Pattern.compile(
                  "Stage 0 tasks succeeded by executor: .*\\b" + Pattern.quote(held[1]) + "=[1-9]")
              .matcher(out);
      assertTrue(ranMaps.find(), "executor " + held[1] + " ran map tasks: " + out);
      assertNoStageRerun(out);
      assertEquals(MAPS, tasksStarted(out, 0), "map tasks started: " + out);
      assertTrue(out.contains("ExecutorLostFailure"), "the killed executor's task failed: " + out);
    } finally {
      job.kill();
    }
  }

  /**
   * Spark 3.3 and 3.4 cannot be told that shuffle storage is reliable, so their dynamic allocation
   * needs shuffle tracking (or an external shuffle service): without either, SparkContext refuses
   * to start, after Sluice's driver has named the setting to change; with shuffle tracking the job
   * runs through Sluice. (Spark 3.5 needs neither: {@link ExecutorLossTest}.)
   */
  @ParameterizedTest(name = "Spark {0}")
  @SparkLinesSource(every = {"3.4", "3.3"})
  void beforeSpark35DynamicAllocationNeedsShuffleTracking(String line) throws Exception {
    List<String> dynamic =
        conf(
            2,
            "--conf",
            "spark.dynamicAllocation.enabled=true",
            "--conf",
            "spark.executor.memory=512m");
    // Spark 3.4 tracks shuffles by default, 3.3 does not.
    List<String> untracked = new ArrayList<>(dynamic);
    untracked.addAll(List.of("--conf", "spark.dynamicAllocation.shuffleTracking.enabled=false"));
    Daemons.Result refused =
        SubmittedJob.start(
                jobDirs,
                line,
                "local-cluster[2,1,1024]",
                "io.sluice.examples.ShuffleExample",
                untracked,
                List.of("20000", "100"))
            .await(JOB_TIMEOUT);
    assertTrue(refused.exitCode() != 0, refused.output());
    assertTrue(
        refused
            .output()
            .contains(
                "spark.dynamicAllocation.enabled=true needs "
                    + "spark.dynamicAllocation.shuffleTracking.enabled=true with Sluice"),
        refused.output());
    assertTrue(
        refused
            .output()
            .contains("Dynamic allocation of executors requires the external shuffle service"),
        refused.output());

    List<String> tracked = new ArrayList<>(dynamic);
    tracked.addAll(List.of("--conf", "spark.dynamicAllocation.shuffleTracking.enabled=true"));
    double before = cluster.pushedBytes();
    Daemons.Result ran =
        SubmittedJob.start(
                jobDirs,
                line,
                "local-cluster[2,1,1024]",
                "io.sluice.examples.ShuffleExample",
                tracked,
                List.of("20000", "100"))
            .await(JOB_TIMEOUT);
    assertEquals(0, ran.exitCode(), ran.output());
    SubmittedJob.assertNoLeak(ran);
    assertTrue(ran.output().contains("Result: 100 keys"), ran.output());
    assertTrue(ran.output().contains("on Spark " + line + "."), ran.output());
    assertTrue(cluster.pushedBytes() > before, "nothing went through Sluice");
    assertFalse(ran.output().contains("shuffleTracking"), ran.output());
  }

  /**
   * Submits FaultJob holding a task of {@code stage} ({@code map}: map 0 half-way through its
   * pushes, once every other map has finished; {@code reduce}: reduce 0 once it has read a record),
   * kills a server with SIGKILL and lets the task go on. Returns the job's output, its answer
   * checked.
   */
  private String runKillingAServer(String line, int replicas, String stage) throws Exception {
    return runDisturbingAServer(line, replicas, stage, this::kill);
  }

  /** As {@link #runKillingAServer}, with {@code fault} striking the server instead of a kill. */
  private String runDisturbingAServer(String line, int replicas, String stage, Fault fault)
      throws Exception {
    return runDisturbingServers(line, replicas, List.of(stage), List.of(fault));
  }

  /**
   * Submits FaultJob holding a task of each of {@code stages} in turn; at each hold, the fault of
   * the same index strikes, then the task goes on. Returns the job's output, its answer checked.
   */
  private String runDisturbingServers(
      String line, int replicas, List<String> stages, List<Fault> faults) throws Exception {
    Path dir =
        Files.createTempDirectory(
            jobDirs, "server-fault-" + replicas + "-" + String.join("-", stages));
    double before = cluster.metric(VICTIM, "sluice_server_pushed_bytes_total");
    Daemons.Running job =
        SubmittedJob.start(
            jobDirs,
            line,
            "local[2,4]",
            JOB,
            conf(replicas),
            List.of(dir.toString(), String.join(",", stages)));
    try {
      for (int i = 0; i < stages.size(); i++) {
        String stage = stages.get(i);
        awaitHeld(job, dir, stage);
        if (i == 0) {
          assertTrue(
              cluster.metric(VICTIM, "sluice_server_pushed_bytes_total") > before,
              "the server to be struck holds some of the job's blocks");
        }
        faults.get(i).strike(VICTIM);
        Files.writeString(dir.resolve(stage + ".go"), "");
      }
      return answered(job, line);
    } finally {
      job.kill();
    }
  }

  /** Something done to a server process while the job holds a task. */
  @FunctionalInterface
  private interface Fault {
    void strike(int server) throws Exception;
  }

  /** SIGKILL; the server is started again after the test. */
  private void kill(int server) throws Exception {
    killed.add(server);
    cluster.kill(server);
  }

  /** SIGSTOP; the server is resumed after the test. */
  private void freeze(int server) throws Exception {
    frozen.add(server);
    cluster.freeze(server);
  }

  /** SIGCONT of a server this test froze. */
  private void thaw(int server) throws Exception {
    cluster.thaw(server);
    frozen.remove(Integer.valueOf(server));
  }

  /** SIGKILL, then started again on its port before the task goes on. */
  private void restart(int server) throws Exception {
    kill(server);
    cluster.start(server);
    killed.remove(Integer.valueOf(server));
  }

  /** SIGTERM (drained, as {@code bin/stop-server.sh} does), then started again on its port. */
  private void restartDrained(int server) throws Exception {
    killed.add(server);
    cluster.stop(server);
    cluster.start(server);
    killed.remove(Integer.valueOf(server));
  }

  private static List<String> conf(int replicas, String... more) {
    List<String> conf = new ArrayList<>(SubmittedJob.throughSluice(cluster.coordinatorAddress()));
    conf.addAll(
        List.of(
            "--conf", "spark.sluice.replicas=" + replicas,
            "--conf", "spark.sluice.block.size=32k",
            "--conf", "spark.sluice.push.batch.size=128k"));
    conf.addAll(List.of(more));
    return conf;
  }

  /**
   * Waits until the job holds its task of {@code stage} (and, mid-map, every other map has
   * finished).
   */
  private static void awaitHeld(Daemons.Running job, Path dir, String stage) throws Exception {
    boolean othersDone = stage.equals("map");
    Await.until(
        () ->
            !job.isAlive()
                || (Files.exists(dir.resolve(stage + ".held"))
                    && (!othersDone || Files.exists(dir.resolve("others-done")))),
        "the job to hold a " + stage + " task");
    if (!job.isAlive()) {
      throw new AssertionError(
          "the job ended before it held a task:\n" + job.await(JOB_TIMEOUT).output());
    }
  }

  /** The output of a job that ended well on Spark {@code line} with the answer it expected. */
  private static String answered(Daemons.Running job, String line) throws Exception {
    Daemons.Result result = job.await(JOB_TIMEOUT);
    String out = result.output();
    SubmittedJob.assertNoLeak(result);
    // What Spark saw, in the test's report.
    out.lines()
        .filter(
            l ->
                l.matches(
                    "(Answer|Expected|Failed tasks|Stage|Tasks started|Task "
                        + "failure|Shuffle manager).*"))
        .forEach(System.out::println);
    assertEquals(0, result.exitCode(), out);
    assertTrue(
        out.contains("Shuffle manager: " + SparkSessions.MANAGER + ", Spark " + line + "."), out);
    assertEquals(
        line("Expected: .*", out).substring("Expected: ".length()),
        line("Answer: .*", out).substring("Answer: ".length()),
        out);
    return out;
  }

  /** Spark submitted each stage once. */
  private static void assertNoStageRerun(String out) {
    assertEquals("Stage submissions: 0=1, 1=1", line("Stage submissions: .*", out), out);
  }

  /** As {@link #assertNoStageRerun}, and no task failed either. */
  private static void assertNoStageRerunNorFailedTask(String out) {
    assertNoStageRerun(out);
    assertEquals("Failed tasks: 0, stage re-runs: 0", line("Failed tasks: .*", out), out);
  }

  /**
   * The reducers found map output gone (a fetch failure) and Spark ran the map stage once more,
   * then the reduce stage.
   */
  private static void assertMapStageRerunOnce(String out) {
    assertEquals("Stage submissions: 0=2, 1=2", line("Stage submissions: .*", out), out);
    assertTrue(out.contains("FetchFailed"), "the reduce stage saw the loss: " + out);
  }

  private static int tasksStarted(String out, int stage) {
    Matcher m = Pattern.compile("Tasks started: .*\\b" + stage + "=(\\d+)").matcher(out);
    assertTrue(m.find(), out);
    return Integer.parseInt(m.group(1));
  }

  private static String line(String regex, String output) {
    Matcher m = Pattern.compile(regex).matcher(output);
    assertTrue(m.find(), "no line matching " + regex + " in:\n" + output);
    return m.group();
  }
}
