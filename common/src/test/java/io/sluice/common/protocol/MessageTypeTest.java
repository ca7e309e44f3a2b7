package io.sluice.common.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.message.StatusResponse;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MessageTypeTest {

  @Test
  void everyByteMapsToAtMostOneTypeAndBack() {
    Set<Byte> used = new HashSet<>();
    for (MessageType type : MessageType.values()) {
      assertTrue(used.add(type.id()), "type byte used twice: " + type.id());
      assertSame(type, MessageType.fromByte(type.id()));
    }
    int known = 0;
    for (int b = 0; b < 256; b++) {
      MessageType type = MessageType.fromByte((byte) b);
      if (type != null) {
        assertEquals((byte) b, type.id());
        known++;
      }
    }
    assertEquals(MessageType.values().length, known);
    assertNull(MessageType.fromByte((byte) 0));
    assertNull(MessageType.fromByte((byte) -1));
  }

  @Test
  void eachTypeNamesAFinalClassOfItsDirectionWithAStaticDecode() throws Exception {
    for (MessageType type : MessageType.values()) {
      Class<? extends Message> cls = type.messageClass();
      assertTrue(Modifier.isFinal(cls.getModifiers()), cls + " is final");
      assertEquals(type.isRequest(), RequestMessage.class.isAssignableFrom(cls), cls.getName());
      assertEquals(!type.isRequest(), ResponseMessage.class.isAssignableFrom(cls), cls.getName());
      assertEquals(type.name(), toConstantName(cls.getSimpleName()));
      Method decode = cls.getMethod("decode", ByteBuf.class);
      assertTrue(Modifier.isStatic(decode.getModifiers()));
      assertSame(cls, decode.getReturnType());
    }
  }

  @Test
  void onlyBodyCarryingMessagesAreReferenceCounted() {
    for (MessageType type : MessageType.values()) {
      boolean body = AbstractBodyMessage.class.isAssignableFrom(type.messageClass());
      boolean expected =
          type == MessageType.PUSH_DATA_REQUEST
              || type == MessageType.FETCH_INDEX_RESPONSE
              || type == MessageType.FETCH_INDEX_PAGE_RESPONSE
              || type == MessageType.FETCH_DATA_RESPONSE
              || type == MessageType.FETCH_MEMORY_DATA_RESPONSE;
      assertEquals(expected, body, type.name());
    }
    assertNull(StatusResponse.ok(1).body());
  }

  @Test
  void retiredTypeBytesStayUnusedAndTheDriverMessagesHaveTheirs() {
    // 20 and 21 were RequireBufferRequest and RequireBufferResponse in protocol 1.
    assertNull(MessageType.fromByte((byte) 20));
    assertNull(MessageType.fromByte((byte) 21));
    assertEquals(50, MessageType.RELOCATE_REQUEST.id());
    assertEquals(51, MessageType.GET_LOCATIONS_REQUEST.id());
    assertEquals(52, MessageType.LOCATIONS_RESPONSE.id());
  }

  @Test
  void errorFactoriesRefuseStatusOk() {
    assertThrows(IllegalArgumentException.class, () -> StatusResponse.error(1, StatusCode.OK, ""));
    assertThrows(
        IllegalArgumentException.class, () -> new ProtocolException(StatusCode.OK, 1, true, "no"));
  }

  private static String toConstantName(String simpleName) {
    return simpleName.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase();
  }
}
