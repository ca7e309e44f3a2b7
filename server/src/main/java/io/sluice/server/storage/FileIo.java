package io.sluice.server.storage;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * How storage opens its files. Production uses {@link #DEFAULT}; tests pass an implementation that
 * fails for chosen directories ("No space left on device", I/O errors) to exercise fail-over
 * without filling a real disk.
 */
public interface FileIo {

  /**
   * Opens {@code p} for writing, creating it if absent. The channel's position is 0; callers write
   * at the positions they choose.
   */
  FileChannel openForAppend(Path p) throws IOException;

  /** Opens an existing file for reading. */
  FileChannel openForRead(Path p) throws IOException;

  /**
   * Opens {@code p} for writing with {@code O_DIRECT} (bypassing the page cache), creating it if
   * absent; see {@link DirectAppender}. An implementation that cannot throws
   * UnsupportedOperationException, and the caller writes through {@link #openForAppend}.
   */
  default FileChannel openForDirectWrite(Path p) throws IOException {
    throw new UnsupportedOperationException(this + " opens no file for direct writes");
  }

  /**
   * Opens an existing file for reading with {@code O_DIRECT}, for data written that way ({@link
   * DirectRead}): the page cache holds none of it.
   */
  default FileChannel openForDirectRead(Path p) throws IOException {
    return FileChannel.open(p, StandardOpenOption.READ, ExtendedOpenOption.DIRECT);
  }

  FileIo DEFAULT =
      new FileIo() {
        @Override
        public FileChannel openForAppend(Path p) throws IOException {
          return FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        }

        @Override
        public FileChannel openForRead(Path p) throws IOException {
          return FileChannel.open(p, StandardOpenOption.READ);
        }

        @Override
        public FileChannel openForDirectWrite(Path p) throws IOException {
          return FileChannel.open(
              p,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.READ,
              ExtendedOpenOption.DIRECT);
        }

        @Override
        public String toString() {
          return "FileIo.DEFAULT";
        }
      };
}
