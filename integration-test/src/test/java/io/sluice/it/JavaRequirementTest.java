package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.fixtures.ProjectRoot;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.apache.spark.SparkConf;
import org.apache.spark.shuffle.sort.SortShuffleManager;
import org.apache.spark.status.AppHistoryServerPlugin;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A driver or executor on a Java older than 17 gets one clear message from the client jars of the
 * Spark lines that run on such a Java (3.3, 3.4, 3.5), not an {@code UnsupportedClassVersionError}.
 * Each shaded jar is loaded as Java 11 would load it: through the jar's Java 11 view (a
 * multi-release jar shows older JVMs its root entries), by a class loader that refuses class files
 * newer than Java 11's as that JVM does. Its entry points must load and refuse to start, naming the
 * requirement; under Java 17's view they are the real ones.
 */
class JavaRequirementTest {
  private static final String MANAGER = "io.sluice.client.spark.SluiceShuffleManager";
  private static final String DATA_IO = "io.sluice.client.spark.SluiceShuffleDataIO";
  private static final String HISTORY_PLUGIN =
      "io.sluice.client.spark.ui.SluiceHistoryServerPlugin";
  private static final String PLUGIN_SERVICE =
      "META-INF/services/org.apache.spark.status.AppHistoryServerPlugin";

  /** Java 11's newest class file version. */
  private static final int JAVA_11 = 55;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"client-spark", "client-spark-3.4", "client-spark-3.3"})
  void onJava11TheEntryPointsNameTheRequirement(String module) throws Exception {
    Path jar = shadedJar(module);
    try (JarFile java11View =
            new JarFile(jar.toFile(), true, ZipFile.OPEN_READ, Runtime.Version.parse("11"));
        Java11Loader loader = new Java11Loader(java11View)) {
      for (String entryPoint : new String[] {MANAGER, DATA_IO}) {
        Class<?> cls = Class.forName(entryPoint, true, loader);
        Object[] args =
            entryPoint.equals(MANAGER)
                ? new Object[] {new SparkConf(false), true}
                : new Object[] {new SparkConf(false)};
        Class<?>[] types =
            entryPoint.equals(MANAGER)
                ? new Class<?>[] {SparkConf.class, boolean.class}
                : new Class<?>[] {SparkConf.class};
        InvocationTargetException thrown =
            assertThrows(
                InvocationTargetException.class, () -> cls.getConstructor(types).newInstance(args));
        String message = thrown.getCause().getMessage();
        assertTrue(thrown.getCause() instanceof IllegalStateException, thrown.getCause()::toString);
        assertTrue(
            message.startsWith(
                "Sluice's Spark client ("
                    + entryPoint
                    + ") needs Java 17 "
                    + "or later on the driver and every executor"),
            message);
        assertTrue(message.contains("spark.executorEnv.JAVA_HOME"), message);
      }
    }
  }

  /**
   * A history server on Java 11 with the client jar on its class path loads the plugin its service
   * file names: the plugin must load there, and show nothing, rather than stop the history server.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"client-spark", "client-spark-3.4", "client-spark-3.3"})
  void onJava11TheHistoryServerPluginLoadsAndAddsNothing(String module) throws Exception {
    Path jar = shadedJar(module);
    try (JarFile java11View =
            new JarFile(jar.toFile(), true, ZipFile.OPEN_READ, Runtime.Version.parse("11"));
        Java11Loader loader = new Java11Loader(java11View)) {
      String service;
      try (InputStream in = java11View.getInputStream(java11View.getJarEntry(PLUGIN_SERVICE))) {
        service = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      }
      assertEquals(HISTORY_PLUGIN, service);
      AppHistoryServerPlugin plugin =
          (AppHistoryServerPlugin)
              Class.forName(service, true, loader).getConstructor().newInstance();
      assertTrue(plugin.createListeners(new SparkConf(false), null).isEmpty());
      plugin.setupUI(null);
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"client-spark", "client-spark-3.4", "client-spark-3.3"})
  void onJava17TheEntryPointsAreTheRealOnes(String module) throws Exception {
    Path jar = shadedJar(module);
    try (JarFile java17View =
        new JarFile(jar.toFile(), true, ZipFile.OPEN_READ, Runtime.Version.parse("17"))) {
      for (String entryPoint : new String[] {MANAGER, DATA_IO, HISTORY_PLUGIN}) {
        assertEquals(61, majorVersion(java17View, entryPoint));
        // The build copies these classes into META-INF/versions/17 unrelocated: a Netty or Guava
        // reference there would name a package the shaded jar does not have.
        String constants =
            new String(classBytes(java17View, entryPoint), StandardCharsets.ISO_8859_1);
        assertFalse(
            constants.contains("io/netty/") || constants.contains("com/google/"),
            entryPoint + " in " + jar + " names an unrelocated Netty or Guava class");
      }
    }
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {jar.toUri().toURL()}, SparkConf.class.getClassLoader())) {
      assertTrue(
          SortShuffleManager.class.isAssignableFrom(loader.loadClass(MANAGER)),
          "a Java 17 class loader finds the real shuffle manager in " + jar);
    }
  }

  private static byte[] classBytes(JarFile jar, String className) throws IOException {
    try (InputStream in =
        jar.getInputStream(jar.getJarEntry(className.replace('.', '/') + ".class"))) {
      return in.readAllBytes();
    }
  }

  private static int majorVersion(JarFile jar, String className) throws IOException {
    ZipEntry entry = jar.getJarEntry(className.replace('.', '/') + ".class");
    try (DataInputStream in = new DataInputStream(jar.getInputStream(entry))) {
      in.readInt();
      in.readUnsignedShort();
      return in.readUnsignedShort();
    }
  }

  private static Path shadedJar(String module) throws IOException {
    try (Stream<Path> files = Files.list(ProjectRoot.get().resolve(module + "/target"))) {
      return files
          .filter(f -> f.getFileName().toString().endsWith("-shaded.jar"))
          .findFirst()
          .orElseThrow(() -> new IllegalStateException("no " + module + " jar: run mvn verify"));
    }
  }

  /**
   * Loads Sluice's classes from a jar's versioned view and refuses class files newer than Java
   * 11's, as a Java 11 JVM does; Spark's classes come from the test's own class path.
   */
  private static final class Java11Loader extends ClassLoader implements AutoCloseable {
    private final JarFile jar;

    Java11Loader(JarFile jar) {
      super(SparkConf.class.getClassLoader());
      this.jar = jar;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.startsWith("io.sluice.")) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> loaded = findLoadedClass(name);
        return loaded != null ? loaded : findClass(name);
      }
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      ZipEntry entry = jar.getJarEntry(name.replace('.', '/') + ".class");
      if (entry == null) {
        throw new ClassNotFoundException(name);
      }
      byte[] bytes;
      try (InputStream in = jar.getInputStream(entry)) {
        bytes = in.readAllBytes();
      } catch (IOException e) {
        throw new ClassNotFoundException(name, e);
      }
      int major = ((bytes[6] & 0xff) << 8) | (bytes[7] & 0xff);
      if (major > JAVA_11) {
        throw new UnsupportedClassVersionError(
            name + " has class file version " + major + ", newer than Java 11's " + JAVA_11);
      }
      return defineClass(name, bytes, 0, bytes.length);
    }

    @Override
    public void close() {}
  }
}
