package io.kvrouter.protocol.dynamo;

import static io.kvrouter.protocol.dynamo.DynamoEventCodecTest.golden;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link WorkerKvQueryCodec} and {@link WorkerLoadCodec} against hand-written goldens. */
class WorkerKvQueryCodecTest {

  private static DynamoRouterEvent event(int dp, long id, KvCacheEvent data) {
    return new DynamoRouterEvent(new RouterEvent(new WorkerRank("7", dp), data), id);
  }

  static Stream<Arguments> queries() {
    return Stream.of(
        Arguments.of("query_tree_dump.json", new WorkerKvQueryCodec.Query(7, 0, null, null)),
        Arguments.of("query_range.json", new WorkerKvQueryCodec.Query(-1L, 2, 5L, 9L)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("queries")
  void query_golden_decodes_andReencodesByteExact(String file, WorkerKvQueryCodec.Query expected) {
    assertThat(WorkerKvQueryCodec.decodeQuery(golden(file))).isEqualTo(expected);
    assertThat(text(WorkerKvQueryCodec.encodeQuery(expected))).isEqualTo(text(golden(file)));
  }

  static Stream<Arguments> results() {
    return Stream.of(
        Arguments.of(
            "result_events.json",
            new WorkerKvQueryResult.Events(
                List.of(
                    event(0, 5, KvCacheEvent.removed(2)), event(0, 6, KvCacheEvent.cleared())))),
        Arguments.of(
            "result_tree_dump.json",
            new WorkerKvQueryResult.TreeDump(
                List.of(
                    event(1, 0, KvCacheEvent.cleared()),
                    event(1, 1, KvCacheEvent.stored(null, new StoredBlock(2, 3)))),
                41L)),
        Arguments.of("result_too_new.json", new WorkerKvQueryResult.TooNew(50, null, 41)),
        Arguments.of("result_invalid_range.json", new WorkerKvQueryResult.InvalidRange(9, 5)),
        Arguments.of(
            "result_error.json", new WorkerKvQueryResult.Error("indexer is shutting down")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("results")
  void result_golden_decodes_andReencodesByteExact(String file, WorkerKvQueryResult expected) {
    assertThat(WorkerKvQueryCodec.decodeResult(golden(file))).isEqualTo(expected);
    assertThat(text(WorkerKvQueryCodec.encodeResult(expected))).isEqualTo(text(golden(file)));
  }

  @Test
  void events_inDynamosEarlierNewtypeForm_areRead() {
    String json =
        "{\"Events\":[{\"worker_id\":7,\"event\":{\"event_id\":5,\"data\":\"cleared\"}}]}";
    assertThat(WorkerKvQueryCodec.decodeResult(json.getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(new WorkerKvQueryResult.Events(List.of(event(0, 5, KvCacheEvent.cleared()))));
  }

  @Test
  void newerFields_areIgnored() {
    String query =
        "{\"worker_id\":7,\"dp_rank\":0,\"start_event_id\":1,\"end_event_id\":null,"
            + "\"supports_tree_dump_failed\":true,\"kind\":\"Recovery\"}";
    assertThat(WorkerKvQueryCodec.decodeQuery(query.getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(new WorkerKvQueryCodec.Query(7, 0, 1L, null));
    String dump = "{\"TreeDump\":{\"events\":[],\"last_event_id\":3,\"reset_scope\":\"Rank\"}}";
    assertThat(WorkerKvQueryCodec.decodeResult(dump.getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(new WorkerKvQueryResult.TreeDump(List.of(), 3L));
  }

  @Test
  void aTreeDump_inDynamosEarlierNewtypeForm_isRead_withoutALastEventId() {
    String json =
        "{\"TreeDump\":[{\"worker_id\":7,\"event\":{\"event_id\":0,\"data\":\"cleared\",\"dp_rank\":0}}]}";
    WorkerKvQueryResult dump =
        WorkerKvQueryCodec.decodeResult(json.getBytes(StandardCharsets.UTF_8));
    assertThat(dump)
        .isEqualTo(
            new WorkerKvQueryResult.TreeDump(List.of(event(0, 0, KvCacheEvent.cleared())), null));
    assertThat(text(WorkerKvQueryCodec.encodeResult(dump))).isEqualTo(json);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{}",
        "{\"Events\":{},\"TooNew\":{}}",
        "{\"TreeDumpFailed\":{\"last_event_id\":1,\"message\":\"x\"}}",
        "{\"TreeDump\":{\"events\":[]}}",
        "{\"TreeDump\":{\"events\":[{\"worker_id\":\"7\"}],\"last_event_id\":1}}",
        "{\"Error\":5}",
        "[1]",
        "not json"
      })
  void malformedResults_failAsFormatErrors_namingTheField(String json) {
    assertThatThrownBy(() -> WorkerKvQueryCodec.decodeResult(json.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageMatching("^(\\$|TreeDump[.a-z_\\[\\]0-9]*|Error|Events)[.:].*");
  }

  @Test
  void aQueryWithoutDpRank_isForTheRankItWasAskedAt() {
    byte[] json =
        "{\"worker_id\":7,\"start_event_id\":3,\"end_event_id\":null}"
            .getBytes(StandardCharsets.UTF_8);
    assertThat(WorkerKvQueryCodec.decodeQuery(json, 2))
        .isEqualTo(new WorkerKvQueryCodec.Query(7, 2, 3L, null));
    assertThat(WorkerKvQueryCodec.decodeQuery(json))
        .isEqualTo(new WorkerKvQueryCodec.Query(7, 0, 3L, null));
    byte[] explicit = "{\"worker_id\":7,\"dp_rank\":1}".getBytes(StandardCharsets.UTF_8);
    assertThat(WorkerKvQueryCodec.decodeQuery(explicit, 2).dpRank()).isEqualTo(1);
  }

  @Test
  void endpoint_isPerRank() {
    assertThat(WorkerKvQueryCodec.endpoint(0)).isEqualTo("worker_kv_indexer_query_dp0");
    assertThat(WorkerKvQueryCodec.endpoint(3)).isEqualTo("worker_kv_indexer_query_dp3");
    assertThatThrownBy(() -> WorkerKvQueryCodec.endpoint(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void loadReport_golden_decodes_andReencodesByteExact() {
    WorkerLoadReport expected =
        new WorkerLoadReport(new WorkerRank("7", 1), 12, 300, 40, 16384, 2, 3);
    assertThat(WorkerLoadCodec.decode(golden("load_active_load.json"))).isEqualTo(expected);
    assertThat(text(WorkerLoadCodec.encode(expected)))
        .isEqualTo(text(golden("load_active_load.json")));
  }

  @Test
  void loadReport_inDynamosEarlierLoadEventForm_isRead() {
    assertThat(WorkerLoadCodec.decode(golden("load_e2_load_event.json")))
        .isEqualTo(
            new WorkerLoadReport(
                new WorkerRank("7", 0), 40, WorkerLoadReport.UNKNOWN, 40, 16384, 2, 3));
  }

  @Test
  void loadReport_dynamosActiveLoad_withOnlyItsOwnFields_leavesTheRestUnknown() {
    String json =
        "{\"worker_id\":9,\"dp_rank\":0,\"active_decode_blocks\":5,\"active_prefill_tokens\":null}";
    assertThat(WorkerLoadCodec.decode(json.getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(new WorkerLoadReport(new WorkerRank("9", 0), 5, -1, -1, -1, -1, -1));
    assertThat(WorkerLoadCodec.subject("dynamo")).isEqualTo("namespace.dynamo.kv_metrics");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"dp_rank\":0}",
        "{\"worker_id\":7,\"active_decode_blocks\":-1}",
        "{\"worker_id\":7,\"active_decode_blocks\":18446744073709551615}",
        "{\"worker_id\":7,\"data\":{\"kv_stats\":{\"kv_total_blocks\":\"many\"}}}"
      })
  void malformedLoadReports_failAsFormatErrors(String json) {
    assertThatThrownBy(() -> WorkerLoadCodec.decode(json.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(DynamoEventFormatException.class);
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
