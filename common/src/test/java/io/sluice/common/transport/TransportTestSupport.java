package io.sluice.common.transport;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.common.config.SluiceConf;
import java.util.Map;

final class TransportTestSupport {
  private TransportTestSupport() {}

  static TransportConf conf(Map<String, String> settings) {
    SluiceConf conf = SluiceConf.empty();
    for (Map.Entry<String, String> e : settings.entrySet()) {
      conf =
          conf.with(
              new TransportOptions()
                  .options().stream()
                      .filter(o -> o.key().equals(e.getKey()))
                      .findFirst()
                      .orElseThrow(),
              e.getValue());
    }
    return new TransportConf(conf);
  }

  static TransportContext context(TransportConf conf, String id) {
    return new TransportContext(conf, id, PooledByteBufAllocator.DEFAULT);
  }
}
