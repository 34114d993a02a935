package io.kvrouter.events.nats;

import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The JetStream stream that stores a KV event subject in durable mode, named the Dynamo way. */
final class JetStreams {
  private static final Logger log = LoggerFactory.getLogger(JetStreams.class);
  private static final int JS_STREAM_NOT_FOUND = 10059;

  private JetStreams() {}

  /**
   * The stream {@link NatsSubjects#streamName} of {@code subject}: found, or created with Dynamo's
   * settings (file storage, {@code maxAge} retention). Workers and routers may create it at the
   * same moment: the server accepts an identical configuration twice.
   */
  static StreamInfo ensureStream(JetStreamManagement jsm, String subject, Duration maxAge)
      throws IOException, JetStreamApiException {
    String stream = NatsSubjects.streamName(subject);
    try {
      return jsm.getStreamInfo(stream);
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() != JS_STREAM_NOT_FOUND) {
        throw e;
      }
      StreamInfo created =
          jsm.addStream(
              StreamConfiguration.builder()
                  .name(stream)
                  .subjects(subject)
                  .storageType(StorageType.File)
                  .maxAge(maxAge)
                  .build());
      log.info("created JetStream stream {} for {}", stream, subject);
      return created;
    }
  }
}
