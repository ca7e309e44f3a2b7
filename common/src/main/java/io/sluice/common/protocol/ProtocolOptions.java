package io.sluice.common.protocol;

import io.sluice.common.config.ConfigOption;

/** Protocol limits; listed with the transport settings in {@code TransportOptions}. */
public final class ProtocolOptions {
  private ProtocolOptions() {}

  public static final ConfigOption<Long> MAX_FRAME_SIZE =
      ConfigOption.bytes("transport.max.frame.size")
          .defaultValue("64m")
          .min(64 * 1024L)
          .max(Integer.MAX_VALUE - 16L)
          .doc(
              "Largest frame a peer accepts. A larger frame is answered with FRAME_TOO_LARGE and its "
                  + "connection closed. Must exceed the client's push batch size and fetch size.")
          .build();
}
