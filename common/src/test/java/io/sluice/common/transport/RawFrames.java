package io.sluice.common.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.common.protocol.Message;
import io.sluice.common.protocol.MessageEncoder;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.StatusCode;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/** Builds frames byte by byte and reads answers off a plain socket, bypassing our own client. */
public final class RawFrames {
  private RawFrames() {}

  public static byte[] encode(Message message) {
    EmbeddedChannel ch = new EmbeddedChannel(new MessageEncoder(false));
    ch.writeOutbound(message);
    ByteBuf all = Unpooled.buffer();
    Object o;
    while ((o = ch.readOutbound()) != null) {
      ByteBuf b = (ByteBuf) o;
      all.writeBytes(b);
      b.release();
    }
    ch.finishAndReleaseAll();
    byte[] bytes = new byte[all.readableBytes()];
    all.readBytes(bytes);
    all.release();
    return bytes;
  }

  /** A frame of {@code type} whose fields {@code fields} writes; the length field is set. */
  public static byte[] frame(MessageType type, Consumer<ByteBuf> fields) {
    return rawFrame(type.id() & 0xFF, fields);
  }

  /** As {@link #frame}, with any type byte, one that names no message included. */
  public static byte[] rawFrame(int type, Consumer<ByteBuf> fields) {
    return raw(
        out -> {
          out.writeInt(0).writeByte(type);
          fields.accept(out);
          out.setInt(0, out.readableBytes() - 4);
        });
  }

  /** The bytes {@code writer} writes, as they are. */
  public static byte[] raw(Consumer<ByteBuf> writer) {
    ByteBuf buf = Unpooled.buffer();
    try {
      writer.accept(buf);
      return ByteBufUtil.getBytes(buf);
    } finally {
      buf.release();
    }
  }

  /** A string as the protocol writes one: uint16 length, then UTF-8 bytes. */
  public static void writeString(ByteBuf out, String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    out.writeShort(bytes.length).writeBytes(bytes);
  }

  /** A response's header: request id, status OK, empty message. */
  public static void responseHeader(ByteBuf out, long requestId) {
    out.writeLong(requestId).writeByte(StatusCode.OK.code());
    writeString(out, "");
  }

  /** A push's header: request id, app id "app", shuffle 1, and the number of replica chains. */
  public static void pushHeader(ByteBuf out, long requestId, int chainCount) {
    out.writeLong(requestId);
    writeString(out, "app");
    out.writeInt(1).writeInt(chainCount);
  }

  /** A block descriptor of partition 0 and map attempt 2. */
  public static void descriptor(ByteBuf out, int sequence, int length) {
    out.writeInt(0).writeLong(2).writeInt(sequence).writeInt(length).writeInt(length).writeInt(0);
  }

  /** A frame with the given length field, type and request id, and nothing else. */
  public static byte[] header(int lengthField, int type, long requestId) {
    ByteBuf b = Unpooled.buffer().writeInt(lengthField).writeByte(type).writeLong(requestId);
    byte[] bytes = new byte[b.readableBytes()];
    b.readBytes(bytes);
    b.release();
    return bytes;
  }

  /** An answer as read off the wire: type, request id, status byte and message. */
  public record Answer(int type, long requestId, int status, String message) {}

  public static Answer readAnswer(Socket socket) throws IOException {
    DataInputStream in = new DataInputStream(socket.getInputStream());
    int length = in.readInt();
    byte[] frame = new byte[length];
    in.readFully(frame);
    ByteBuf b = Unpooled.wrappedBuffer(frame);
    int type = b.readByte();
    long requestId = b.readLong();
    int status = b.readByte();
    int msgLen = b.readUnsignedShort();
    String message = b.readCharSequence(msgLen, StandardCharsets.UTF_8).toString();
    return new Answer(type, requestId, status, message);
  }

  /** The next frame off the wire, decoded; the caller releases it if it has a body. */
  public static Message readMessage(Socket socket) throws IOException {
    DataInputStream in = new DataInputStream(socket.getInputStream());
    int length = in.readInt();
    byte[] frame = new byte[length];
    in.readFully(frame);
    ByteBuf b = Unpooled.wrappedBuffer(frame);
    try {
      MessageType type = MessageType.fromByte(b.readByte());
      if (type == null) {
        throw new IOException("unknown message type byte " + frame[0]);
      }
      return type.decode(b);
    } finally {
      b.release();
    }
  }

  /** True when the peer closes the connection (EOF) within the socket's timeout. */
  public static boolean closedByPeer(Socket socket) throws IOException {
    try {
      while (true) {
        if (socket.getInputStream().read() < 0) {
          return true;
        }
      }
    } catch (java.net.SocketException e) {
      return true;
    } catch (java.net.SocketTimeoutException e) {
      return false;
    }
  }
}
