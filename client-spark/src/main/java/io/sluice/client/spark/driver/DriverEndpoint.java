package io.sluice.client.spark.driver;

import io.netty.util.ReferenceCountUtil;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.GetLocationsRequest;
import io.sluice.common.protocol.message.LocationsResponse;
import io.sluice.common.protocol.message.RelocateRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.shuffle.Retries;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.RequestHandler;
import io.sluice.common.transport.TransportChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's port for executors: new locations for partitions a writer could not write
 * ({@link RelocateRequest}) and every location partitions had ({@link GetLocationsRequest}).
 * Look-ups are answered on the event loop; relocations, which ask the coordinator and register
 * servers, run one at a time on their own thread.
 */
final class DriverEndpoint implements RequestHandler {
  private static final Logger LOG = LoggerFactory.getLogger(DriverEndpoint.class);

  private final String appId;
  private final IntFunction<ShuffleBook> books;
  private final Relocator relocator;
  private final ExecutorService relocations;

  /** @param books the book of a shuffle id, or null when the shuffle is unknown */
  DriverEndpoint(String appId, IntFunction<ShuffleBook> books, Relocator relocator,
      ExecutorService relocations) {
    this.appId = appId;
    this.books = books;
    this.relocator = relocator;
    this.relocations = relocations;
  }

  @Override
  public void handle(TransportChannel channel, RequestMessage request) {
    long id = request.requestId();
    if (request instanceof GetLocationsRequest get) {
      ShuffleBook book = book(channel, id, get.appId(), get.shuffleId());
      if (book != null) {
        List<LocationsResponse.Entry> entries = new ArrayList<>();
        for (Map.Entry<Integer, List<PartitionLocation>> e
            : book.movedIn(get.startPartition(), get.endPartition()).entrySet()) {
          for (PartitionLocation l : e.getValue()) {
            entries.add(new LocationsResponse.Entry(e.getKey(), l));
          }
        }
        channel.respond(new LocationsResponse(id, entries));
      }
    } else if (request instanceof RelocateRequest r) {
      ShuffleBook book = book(channel, id, r.appId(), r.shuffleId());
      if (book == null) {
        return;
      }
      try {
        relocations.execute(() -> relocate(channel, r, book));
      } catch (RejectedExecutionException e) {
        channel.respond(StatusResponse.error(id, StatusCode.SHUTTING_DOWN,
            "the driver is stopping"));
      }
    } else {
      ReferenceCountUtil.release(request);
      channel.respond(StatusResponse.error(id, StatusCode.INVALID_REQUEST,
          "a Spark driver does not serve " + request.type()));
    }
  }

  private void relocate(TransportChannel channel, RelocateRequest r, ShuffleBook book) {
    try {
      Map<Integer, PartitionLocation> locations = relocator.relocate(book, r.partitionIds(),
          r.epochs(), r.failedServerId(), r.reason());
      List<LocationsResponse.Entry> entries = new ArrayList<>();
      locations.forEach((p, l) -> entries.add(new LocationsResponse.Entry(p, l)));
      channel.respond(new LocationsResponse(r.requestId(), entries));
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      Throwable cause = Retries.unwrap(e);
      StatusCode status = cause instanceof RemoteException remote ? remote.status()
          : cause instanceof IllegalArgumentException ? StatusCode.INVALID_REQUEST
          : StatusCode.INTERNAL_ERROR;
      LOG.warn("Cannot relocate {} partitions of shuffle {}: {}", r.partitionIds().length,
          r.shuffleId(), cause.toString());
      channel.respond(StatusResponse.error(r.requestId(), status,
          "no new location for shuffle " + r.shuffleId() + ": " + cause.getMessage()));
    }
  }

  private ShuffleBook book(TransportChannel channel, long requestId, String app, int shuffleId) {
    ShuffleBook book = app.equals(appId) ? books.apply(shuffleId) : null;
    if (book == null) {
      channel.respond(StatusResponse.error(requestId, StatusCode.UNKNOWN_SHUFFLE, "shuffle "
          + shuffleId + " of " + app + " is not known to this driver (application " + appId
          + ")"));
    }
    return book;
  }
}
