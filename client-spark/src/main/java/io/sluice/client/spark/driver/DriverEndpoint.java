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
import io.sluice.common.transport.NetworkErrors;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.RequestHandler;
import io.sluice.common.transport.TransportChannel;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's port for executors: new locations for partitions a writer could not write ({@link
 * RelocateRequest}) and every location partitions had ({@link GetLocationsRequest}). Look-ups of
 * live shuffles are answered on the event loop; relocations and revivals of shuffles Spark removed
 * and runs again ({@link ShuffleBooks}), which ask the coordinator and register servers, run one at
 * a time on their own thread.
 */
final class DriverEndpoint implements RequestHandler {
  private static final Logger LOG = LoggerFactory.getLogger(DriverEndpoint.class);

  private final String appId;
  private final ShuffleBooks books;
  private final ExecutorService relocations;

  /**
   * @param relocations where relocations and revivals of removed shuffles run: they call the
   *     coordinator and servers, which the event loop must not wait for
   */
  DriverEndpoint(String appId, ShuffleBooks books, ExecutorService relocations) {
    this.appId = appId;
    this.books = books;
    this.relocations = relocations;
  }

  @Override
  public void handle(TransportChannel channel, RequestMessage request) {
    long id = request.requestId();
    if (request instanceof GetLocationsRequest get) {
      if (!knownApplication(channel, id, get.appId(), get.shuffleId())) {
        return;
      }
      ShuffleBook book = books.live(get.shuffleId());
      if (book != null) {
        channel.respond(locations(id, book, get));
      } else {
        offload(channel, id, () -> answerRevived(channel, get));
      }
    } else if (request instanceof RelocateRequest r) {
      if (knownApplication(channel, id, r.appId(), r.shuffleId())) {
        offload(channel, id, () -> relocate(channel, r));
      }
    } else {
      ReferenceCountUtil.release(request);
      channel.respond(
          StatusResponse.error(
              id, StatusCode.INVALID_REQUEST, "a Spark driver does not serve " + request.type()));
    }
  }

  private static LocationsResponse locations(
      long requestId, ShuffleBook book, GetLocationsRequest get) {
    List<LocationsResponse.Entry> entries = new ArrayList<>();
    for (Map.Entry<Integer, List<PartitionLocation>> e :
        book.movedIn(get.startPartition(), get.endPartition()).entrySet()) {
      for (PartitionLocation l : e.getValue()) {
        entries.add(new LocationsResponse.Entry(e.getKey(), l));
      }
    }
    return new LocationsResponse(requestId, entries);
  }

  private void offload(TransportChannel channel, long requestId, Runnable work) {
    try {
      relocations.execute(work);
    } catch (RejectedExecutionException e) {
      channel.respond(
          StatusResponse.error(requestId, StatusCode.SHUTTING_DOWN, "the driver is stopping"));
    }
  }

  /** Locations of a shuffle that is not live: revived if Spark removed it and runs it again. */
  private void answerRevived(TransportChannel channel, GetLocationsRequest get) {
    try {
      ShuffleBook book = revived(channel, get.requestId(), get.appId(), get.shuffleId());
      if (book != null) {
        channel.respond(locations(get.requestId(), book, get));
      }
    } catch (Exception e) {
      failed(channel, get.requestId(), get.shuffleId(), "no locations", e);
    }
  }

  private void relocate(TransportChannel channel, RelocateRequest r) {
    try {
      ShuffleBook book = revived(channel, r.requestId(), r.appId(), r.shuffleId());
      if (book == null) {
        return;
      }
      Map<Integer, PartitionLocation> locations =
          books
              .relocator()
              .relocate(book, r.partitionIds(), r.epochs(), r.failedServerId(), r.reason());
      List<LocationsResponse.Entry> entries = new ArrayList<>();
      locations.forEach((p, l) -> entries.add(new LocationsResponse.Entry(p, l)));
      channel.respond(new LocationsResponse(r.requestId(), entries));
    } catch (Exception e) {
      failed(channel, r.requestId(), r.shuffleId(), "no new location", e);
    }
  }

  /** Answers a request that failed with the status of its cause. */
  private static void failed(
      TransportChannel channel, long requestId, int shuffleId, String what, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    Throwable cause = Retries.unwrap(e);
    StatusCode status =
        cause instanceof RemoteException remote
            ? remote.status()
            : cause instanceof IllegalArgumentException
                ? StatusCode.INVALID_REQUEST
                : StatusCode.INTERNAL_ERROR;
    LOG.warn("{} for shuffle {}: {}", what, shuffleId, NetworkErrors.describe(cause));
    channel.respond(
        StatusResponse.error(
            requestId, status, what + " for shuffle " + shuffleId + ": " + cause.getMessage()));
  }

  private boolean knownApplication(
      TransportChannel channel, long requestId, String app, int shuffleId) {
    if (app.equals(appId)) {
      return true;
    }
    unknown(channel, requestId, app, shuffleId);
    return false;
  }

  /** The shuffle's book, revived if Spark removed its data; answers UNKNOWN_SHUFFLE if none. */
  private ShuffleBook revived(TransportChannel channel, long requestId, String app, int shuffleId)
      throws IOException, InterruptedException {
    ShuffleBook book = books.liveOrRevived(shuffleId);
    if (book == null) {
      unknown(channel, requestId, app, shuffleId);
    }
    return book;
  }

  private void unknown(TransportChannel channel, long requestId, String app, int shuffleId) {
    channel.respond(
        StatusResponse.error(
            requestId,
            StatusCode.UNKNOWN_SHUFFLE,
            "shuffle "
                + shuffleId
                + " of "
                + app
                + " is not known to this driver (application "
                + appId
                + ")"));
  }
}
