package io.kvrouter.events.nats;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Subscription;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * NATS request/reply whose reply may come in several messages, for answers larger than the
 * server's {@code max_payload} (1 MB by default; a tree dump of a large cache is several times
 * that). The server itself has no such thing, so the parts are numbered in a header:
 *
 * <pre>
 *   one part:    reply payload, no header (what any NATS requester reads)
 *   n parts:     n messages to the reply subject, in order, each with the header
 *                Kvrouter-Reply-Part: i/n     (i from 1)
 * </pre>
 *
 * The requester listens on its own inbox, collects parts 1..n in any order, and completes with
 * them in order; it fails on "no responders" (the server's 503 status), on a malformed part
 * header and when the parts are not all there within the timeout.
 */
final class MultipartReply {
  static final String PART_HEADER = "Kvrouter-Reply-Part";
  /** Room left in each part for the message's headers. */
  static final int HEADER_ROOM = 1024;

  private MultipartReply() {}

  /** The largest payload of one part on {@code connection}. */
  static int maxPartBytes(Connection connection) {
    return (int) Math.max(1024, connection.getServerInfo().getMaxPayload() - HEADER_ROOM);
  }

  /** Publishes {@code parts} to {@code replyTo}, numbered when there is more than one. */
  static void send(Connection connection, String replyTo, List<byte[]> parts) {
    if (parts.size() == 1) {
      connection.publish(replyTo, parts.get(0));
      return;
    }
    for (int i = 0; i < parts.size(); i++) {
      Headers headers = new Headers().put(PART_HEADER, (i + 1) + "/" + parts.size());
      connection.publish(
          NatsMessage.builder().subject(replyTo).headers(headers).data(parts.get(i)).build());
    }
  }

  /** Sends {@code payload} to {@code subject} and completes with every part of the reply. */
  static CompletableFuture<List<byte[]>> request(
      Connection connection, Dispatcher dispatcher, String subject, byte[] payload,
      Duration timeout) {
    String inbox = connection.createInbox();
    Parts parts = new Parts(subject);
    Subscription subscription = dispatcher.subscribe(inbox, parts::accept);
    parts.result.whenComplete((r, e) -> dispatcher.unsubscribe(subscription));
    try {
      connection.publish(subject, inbox, payload);
    } catch (RuntimeException e) {
      parts.result.completeExceptionally(e);
    }
    return parts.result.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The parts received so far; called on the dispatcher's thread only. */
  private static final class Parts {
    final CompletableFuture<List<byte[]>> result = new CompletableFuture<>();
    /** Where the request went, for errors (a status message comes on the inbox). */
    private final String subject;
    private byte[][] received;

    Parts(String subject) {
      this.subject = subject;
    }
    private int missing;

    void accept(Message message) {
      if (message.isStatusMessage()) {
        result.completeExceptionally(
            new IllegalStateException(
                message.getStatus().getCode() == 503
                    ? "no responders on " + subject
                    : "NATS status " + message.getStatus() + " for " + subject));
        return;
      }
      byte[] data = message.getData() == null ? new byte[0] : message.getData();
      String part = message.hasHeaders() ? message.getHeaders().getFirst(PART_HEADER) : null;
      if (part == null) {
        result.complete(List.of(data));
        return;
      }
      int slash = part.indexOf('/');
      int index;
      int count;
      try {
        index = Integer.parseInt(part.substring(0, slash)) - 1;
        count = Integer.parseInt(part.substring(slash + 1));
      } catch (RuntimeException e) {
        result.completeExceptionally(new IllegalStateException("bad " + PART_HEADER + ": " + part));
        return;
      }
      if (received == null) {
        if (count < 1 || count > 1 << 20) {
          result.completeExceptionally(new IllegalStateException("bad part count " + part));
          return;
        }
        received = new byte[count][];
        missing = count;
      }
      if (count != received.length || index < 0 || index >= count) {
        result.completeExceptionally(new IllegalStateException("bad " + PART_HEADER + ": " + part));
        return;
      }
      if (received[index] == null) {
        received[index] = data;
        if (--missing == 0) {
          result.complete(new ArrayList<>(Arrays.asList(received)));
        }
      }
    }
  }
}
