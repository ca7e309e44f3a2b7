package io.sluice.common.transport;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * Says what went wrong on a connection in words an operator reads, for error messages and log
 * lines: {@code connection reset by peer}, not {@code
 * io.netty.channel.unix.Errors$NativeIoException: recvAddress(..) failed: Connection reset by
 * peer}. The exception itself stays the cause of whatever is thrown, for a stack trace.
 */
public final class NetworkErrors {
  /** The system call Netty's native transports name before the operating system's message. */
  private static final Pattern NATIVE_CALL =
      Pattern.compile("^\\w+\\(\\.\\.\\) failed(?: with [^:]*)?: ");

  private NetworkErrors() {}

  /** A short description of {@code error}, without the class names of the network library. */
  public static String describe(Throwable error) {
    if (error == null) {
      return "unknown error";
    }
    if (error instanceof ClosedChannelException) {
      return "the connection is closed";
    }
    if (error.getClass().getName().startsWith("io.netty.")
        && !(error instanceof IOException)
        && error.getCause() != null) {
      // A codec's or handler's wrapper (DecoderException, say): what it wraps is what happened.
      return describe(error.getCause());
    }
    String message = error.getMessage();
    if (error instanceof SSLException) {
      return "TLS failed: " + orClass(message, error);
    }
    if (error instanceof IOException || error.getClass().getName().startsWith("io.netty.")) {
      if (message == null || message.isBlank()) {
        return error.getClass().getSimpleName();
      }
      Matcher call = NATIVE_CALL.matcher(message);
      return call.find() ? lowerFirst(message.substring(call.end())) : message;
    }
    // Anything else is a bug somewhere: its class says most.
    return error.toString();
  }

  private static String orClass(String message, Throwable error) {
    return message == null || message.isBlank() ? error.getClass().getSimpleName() : message;
  }

  private static String lowerFirst(String s) {
    return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
  }
}
