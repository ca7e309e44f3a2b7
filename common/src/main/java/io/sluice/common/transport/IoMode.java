package io.sluice.common.transport;

/** Which Netty transport to use. AUTO picks native epoll when it loads, NIO otherwise. */
public enum IoMode {
  AUTO,
  EPOLL,
  NIO
}
