package io.sluice.server.storage;

import io.netty.buffer.ByteBuf;

/** A block for tests; the test owns {@link #data()} and releases it. */
record TestBlock(ByteBuf data, long taskAttemptId, int sequence, int uncompressedLength, int crc32c)
    implements FlushableBlock {}
