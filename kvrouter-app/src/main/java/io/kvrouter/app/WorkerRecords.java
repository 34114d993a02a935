package io.kvrouter.app;

import io.kvrouter.config.KvEventsFormat;
import io.kvrouter.config.SimulatedEngineConfig;
import io.kvrouter.config.WorkerConfig;
import io.kvrouter.config.WorkerEventsConfig;
import io.kvrouter.discovery.CardFile;
import io.kvrouter.discovery.DiscoveryRecord;
import io.kvrouter.discovery.EventChannelRecord;
import io.kvrouter.discovery.EventScope;
import io.kvrouter.discovery.EventTransport;
import io.kvrouter.discovery.InstanceRecord;
import io.kvrouter.discovery.ModelCard;
import io.kvrouter.discovery.ModelCardRecord;
import io.kvrouter.discovery.RuntimeConfig;
import io.kvrouter.discovery.Transport;
import io.kvrouter.preprocess.ModelAssets;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The discovery records a {@code router.jar worker} writes, as a Dynamo worker of the same shape
 * writes them (docs/notes/dynamo-discovery.md §1.2–§1.7):
 *
 * <ul>
 *   <li>one {@code v1/instances} record per endpoint it serves ({@code generate}, and in Dynamo's
 *       event format its recovery-query endpoints), with the TCP address {@code
 *       host:port/{id:x}/{endpoint}} or, with {@code --request-plane nats}, the endpoint's NATS
 *       subject;
 *   <li>its model card under {@code generate} in {@code v1/mdc};
 *   <li>in Dynamo's event format, one {@code v1/event_channels} record per KV event publisher
 *       (topic {@code kv-events}, endpoint scope, the publisher ids its sink stamps on envelopes).
 * </ul>
 */
final class WorkerRecords {
  /** The files a card points at, by card field and variant, as Dynamo's loader finds them. */
  private static final List<String[]> CARD_FILES =
      List.of(
          new String[] {"model_info", "hf_config_json", ModelAssets.MODEL_CONFIG_FILE},
          new String[] {"tokenizer", "hf_tokenizer_json", ModelAssets.TOKENIZER_FILE},
          new String[] {
            "prompt_formatter", "hf_tokenizer_config_json", ModelAssets.TOKENIZER_CONFIG_FILE
          },
          new String[] {"chat_template_file", "hf_chat_template", ModelAssets.CHAT_TEMPLATE_FILE},
          new String[] {
            "gen_config", "hf_generation_config_json", ModelAssets.GENERATION_CONFIG_FILE
          });

  private WorkerRecords() {}

  /**
   * @param host how routers reach the worker's TCP server
   * @param tcpPort the TCP request plane's port
   * @param endpoints the endpoints it serves, {@code generate} first
   * @param planeAddresses each endpoint's address on the request plane other than TCP: its NATS
   *     subject with {@code --request-plane nats}, its URL with {@code http}; empty with {@code
   *     tcp}
   * @param sink its Dynamo event sink, or null when its events are vLLM's
   */
  static List<DiscoveryRecord> of(
      WorkerConfig config,
      long instanceId,
      String host,
      int tcpPort,
      Set<String> endpoints,
      Map<String, Transport> planeAddresses,
      ModelCard card,
      DynamoEventSink sink) {
    WorkerEventsConfig events = config.events();
    List<DiscoveryRecord> records = new ArrayList<>();
    for (String endpoint : endpoints) {
      Transport transport =
          planeAddresses.getOrDefault(endpoint, Transport.tcp(host, tcpPort, instanceId, endpoint));
      records.add(
          new InstanceRecord(
              events.namespace(),
              events.component(),
              endpoint,
              instanceId,
              transport,
              Optional.empty()));
    }
    records.add(
        new ModelCardRecord(
            events.namespace(),
            events.component(),
            WorkerEndpoint.DEFAULT_PATH,
            instanceId,
            card,
            Optional.empty()));
    Optional<EventTransport> channel = sink == null ? Optional.empty() : sink.eventChannel();
    if (channel.isPresent()) {
      Set<Long> publishers = new LinkedHashSet<>();
      for (int rank = 0; rank < config.engine().dataParallelSize(); rank++) {
        sink.publisherId(rank).ifPresent(publishers::add);
      }
      for (long publisher : publishers) {
        records.add(
            new EventChannelRecord(
                EventChannelRecord.Layout.SCOPED,
                EventScope.endpoint(events.namespace(), events.component(), events.endpoint()),
                DynamoMsgpackCodec.KV_EVENTS_TOPIC,
                publisher,
                channel.get()));
      }
      sink.loadChannel()
          .ifPresent(
              load ->
                  records.add(
                      new EventChannelRecord(
                          EventChannelRecord.Layout.SCOPED,
                          EventScope.endpoint(
                              events.namespace(), events.component(), events.endpoint()),
                          DynamoMsgpackCodec.KV_METRICS_TOPIC,
                          load.publisherId(),
                          load.transport())));
    }
    return records;
  }

  /**
   * The worker's card: its model name, block size, KV blocks, data-parallel ranks, context length
   * (the model folder's, else what one rank's cache holds: blocks × block size), and the files of
   * {@code --model-path} with their BLAKE3 and size.
   */
  static ModelCard card(WorkerConfig config, ModelAssets assets) throws IOException {
    SimulatedEngineConfig engine = config.engine();
    int contextLength =
        assets
            .contextLength()
            .orElse(
                (int)
                    Math.min(Integer.MAX_VALUE, (long) engine.numGpuBlocks() * engine.blockSize()));
    Map<String, CardFile> files = new LinkedHashMap<>();
    Path folder = config.modelPath();
    if (folder != null) {
      for (String[] file : CARD_FILES) {
        Path path = folder.resolve(file[2]);
        if (Files.isRegularFile(path)) {
          files.put(file[0], CardFile.of(file[1], path));
        }
      }
    }
    return ModelCard.forWorker(
        config.modelName(),
        folder == null ? Optional.empty() : Optional.of(folder.toAbsolutePath().toString()),
        contextLength,
        engine.blockSize(),
        new RuntimeConfig(
            OptionalInt.of(contextLength),
            OptionalLong.of(engine.numGpuBlocks()),
            OptionalLong.of(engine.maxNumSeqs()),
            OptionalLong.of(engine.maxNumBatchedTokens()),
            0,
            engine.dataParallelSize(),
            config.events().format() == KvEventsFormat.DYNAMO),
        files);
  }
}
