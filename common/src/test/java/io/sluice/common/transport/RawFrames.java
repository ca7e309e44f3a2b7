package io.sluice.common.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.common.protocol.Message;
import io.sluice.common.protocol.MessageEncoder;
import io.sluice.common.protocol.MessageType;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Builds frames byte by byte and reads answers off a plain socket, bypassing our own client. */
final class RawFrames {
  private RawFrames() {}

  static byte[] encode(Message message) {
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

  /** A frame with the given length field, type and request id, and nothing else. */
  static byte[] header(int lengthField, int type, long requestId) {
    ByteBuf b = Unpooled.buffer().writeInt(lengthField).writeByte(type).writeLong(requestId);
    byte[] bytes = new byte[b.readableBytes()];
    b.readBytes(bytes);
    b.release();
    return bytes;
  }

  /** An answer as read off the wire: type, request id, status byte and message. */
  record Answer(int type, long requestId, int status, String message) {}

  static Answer readAnswer(Socket socket) throws IOException {
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
  static Message readMessage(Socket socket) throws IOException {
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
  static boolean closedByPeer(Socket socket) throws IOException {
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
