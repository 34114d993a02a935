package io.kvrouter.protocol.dynamo;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.testing.HexFixtures;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bytes serde itself makes of Dynamo's event-plane types ({@code golden/dynamo-serde}, written
 * by {@code scripts/golden/dynamo-serde} with serde_json and rmp_serde from structs shaped as
 * Dynamo's) are the hand-laid fixtures the codecs are tested against, and the codecs read and write
 * them.
 */
class DynamoSerdeGoldenTest {
  private static final DynamoRouterEvent STORED =
      new DynamoRouterEvent(
          new RouterEvent(
              new WorkerRank("7", 0), KvCacheEvent.stored(null, new StoredBlock(0x1234, 0xABCD))),
          1);

  static byte[] serde(String name) {
    return HexFixtures.load("/golden/dynamo-serde/" + name);
  }

  static String serdeText(String name) {
    try (InputStream in =
        DynamoSerdeGoldenTest.class.getResourceAsStream("/golden/dynamo-serde/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void theNatsMessageOfAnEventBatch_isTheEnvelopeOfTheZmqFrame_andWhatTheCodecsWrite() {
    byte[] message = serde("s3_batch_envelope.hex");

    assertThat(message).isEqualTo(E3Golden.envelopeOf(E3Golden.load("s3_batch_frame.hex")));
    assertThat(
            EventEnvelopeCodec.encodeEnvelope(
                new EventEnvelope(
                    1,
                    0,
                    1_700_000_000_000L,
                    DynamoMsgpackCodec.KV_EVENTS_TOPIC,
                    DynamoMsgpackCodec.encodeBatch(List.of(STORED)))))
        .isEqualTo(message);
    assertThat(
            DynamoMsgpackCodec.decodePayload(EventEnvelopeCodec.decodeEnvelope(message).payload()))
        .containsExactly(STORED);
  }

  @Test
  void removalsClearsAndLoad_matchTheHandLaidFixtures() {
    assertThat(serde("s3_removed_cleared_payload.hex"))
        .isEqualTo(E3Golden.load("s3_removed_cleared_payload.hex"));
    assertThat(serde("active_load.hex")).isEqualTo(E3Golden.load("active_load.hex"));
  }

  @Test
  void msgpackRequestBodyAndItems_matchTheHandLaidRequestPlaneFixtures() {
    for (String name :
        List.of(
            "msgpack_request_body.hex", "msgpack_rust_item.hex", "msgpack_complete_final.hex")) {
      assertThat(serde(name)).as(name).isEqualTo(HexFixtures.load("/golden/request-plane/" + name));
    }
  }

  @Test
  void aDynamo15RoutersRecoveryQuestion_isReadByTheWorkerSide() {
    byte[] question = serdeText("worker_kv_query_request.json").getBytes(StandardCharsets.UTF_8);
    assertThat(WorkerKvQueryCodec.decodeQuery(question))
        .isEqualTo(new WorkerKvQueryCodec.Query(7, 1, 3L, null));
  }
}
