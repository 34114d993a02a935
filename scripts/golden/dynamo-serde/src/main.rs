//! Writes golden bytes made by serde_json and rmp_serde from structs shaped as Dynamo's wire types.
//! The shapes (names, order, serde attributes) are transcribed from Dynamo's source; the code is
//! ours. See README.md.

use serde::Serialize;
use std::fs;
use std::path::PathBuf;

// ---- event plane: lib/kv-router/src/protocols.rs (latest read, index id 66907637791) and
// ---- lib/runtime/src/transports/event_plane/codec.rs @bf0be57c

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum StorageTier {
    Device,
    HostPinned,
    Disk,
    External,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum ResidencyDomain {
    Worker,
    CacheOwner,
}

#[derive(Serialize)]
struct RouterEvent {
    worker_id: u64,
    storage_tier: StorageTier,
    #[serde(skip_serializing_if = "Option::is_none")]
    residency_domain: Option<ResidencyDomain>,
    event: KvCacheEvent,
}

#[derive(Serialize)]
struct KvCacheEvent {
    event_id: u64,
    data: KvCacheEventData,
    dp_rank: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum KvCacheEventData {
    Stored(KvCacheStoreData),
    Removed(KvCacheRemoveData),
    Cleared,
}

#[derive(Serialize)]
struct KvCacheStoreData {
    parent_hash: Option<u64>,
    start_position: Option<u32>,
    blocks: Vec<KvCacheStoredBlockData>,
}

#[derive(Serialize)]
struct KvCacheStoredBlockData {
    block_hash: u64,
    tokens_hash: u64,
    mm_extra_info: Option<()>,
}

#[derive(Serialize)]
struct KvCacheRemoveData {
    block_hashes: Vec<u64>,
}

#[derive(Serialize)]
struct EventEnvelope {
    publisher_id: u64,
    sequence: u64,
    published_at: u64,
    topic: String,
    #[serde(with = "serde_bytes")]
    payload: Vec<u8>,
}

// lib/kv-router/src/protocols.rs: ActiveLoad (no serde attributes: None is nil)
#[derive(Serialize)]
struct ActiveLoad {
    worker_id: u64,
    dp_rank: u32,
    active_decode_blocks: Option<u64>,
    active_prefill_tokens: Option<u64>,
    kv_used_blocks: Option<u64>,
}

// lib/llm/src/kv_router/indexer (WorkerKvQueryRequest, index id 57864009053): what a v1.5 router
// sends; the two last fields are #[serde(default)] on the way in.
#[derive(Serialize)]
#[allow(dead_code)]
enum WorkerKvQueryKind {
    Recovery,
}

#[derive(Serialize)]
struct WorkerKvQueryRequest {
    worker_id: u64,
    dp_rank: u32,
    start_event_id: Option<u64>,
    end_event_id: Option<u64>,
    supports_tree_dump_failed: bool,
    kind: WorkerKvQueryKind,
}

// ---- request plane: lib/llm/src/protocols/common/preprocessor.rs @000a36a7,
// ---- lib/llm/src/protocols/common.rs @0ab24416 (docs/interop.md §10.4)

type Json = serde_json::Value;

#[derive(Serialize)]
struct PreprocessedRequest {
    model: String,
    token_ids: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    generate_request: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_embeds: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    multi_modal_data: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mm_routing_info: Option<Json>,
    stop_conditions: StopConditions,
    sampling_options: SamplingOptions,
    output_options: OutputOptions,
    eos_token_ids: Vec<u32>,
    mdc_sum: Option<String>,
    annotations: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    routing: Option<RoutingHints>,
    router_config_override: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prefill_result: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    encoder_result: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    migration_link: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bootstrap_info: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extra_args: Option<Json>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    require_reasoning: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    router: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_context: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mm_processor_kwargs: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_timestamp_ms: Option<f64>,
    #[serde(rename = "_HEALTH_CHECK", skip_serializing_if = "std::ops::Not::not")]
    is_probe: bool,
}

#[derive(Serialize, Default)]
struct StopConditions {
    max_tokens: Option<u32>,
    stop: Option<Vec<String>>,
    stop_token_ids: Option<Vec<u32>>,
    stop_token_ids_hidden: Option<Vec<u32>>,
    min_tokens: Option<u32>,
    ignore_eos: Option<bool>,
    max_thinking_tokens: Option<u32>,
}

#[derive(Serialize, Default)]
struct SamplingOptions {
    n: Option<u8>,
    best_of: Option<u8>,
    presence_penalty: Option<f32>,
    frequency_penalty: Option<f32>,
    repetition_penalty: Option<f32>,
    temperature: Option<f32>,
    top_p: Option<f32>,
    top_k: Option<i32>,
    min_p: Option<f32>,
    use_beam_search: Option<bool>,
    length_penalty: Option<f32>,
    seed: Option<i64>,
    include_stop_str_in_output: Option<bool>,
    guided_decoding: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detokenize: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_token_ids: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bad_words_token_ids: Option<Vec<Vec<u32>>>,
}

#[derive(Serialize, Default)]
struct OutputOptions {
    logprobs: Option<u32>,
    prompt_logprobs: Option<u32>,
    skip_special_tokens: Option<bool>,
    formatted_prompt: Option<bool>,
    return_tokens_as_token_ids: Option<bool>,
}

// lib/llm/src/protocols/common/preprocessor.rs @000a36a7: RoutingHints, every field skipped when None
// (the fields after dp_rank as docs/interop.md §10.4 lists them; the cache namespace is written
// under its serde rename cache_salt, ai-dynamo/dynamo PR #8197)
#[derive(Serialize, Default)]
struct RoutingHints {
    #[serde(skip_serializing_if = "Option::is_none")]
    backend_instance_id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prefill_worker_id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decode_worker_id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dp_rank: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prefill_dp_rank: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_output_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lora_name: Option<String>,
    #[serde(rename = "cache_salt", skip_serializing_if = "Option::is_none")]
    cache_namespace: Option<String>,
}

// ---- response items: lib/runtime/src/pipeline/network.rs (NetworkStreamWrapper),
// ---- lib/runtime/src/protocols/annotated.rs (Annotated), llm_backend.rs @07d14345

#[derive(Serialize)]
struct NetworkStreamWrapper<T> {
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<T>,
    complete_final: bool,
}

#[derive(Serialize)]
struct Annotated<T> {
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<T>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    event: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    comment: Option<Vec<String>>,
}

#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum OutputType {
    Text,
}

#[derive(Serialize)]
struct LlmEngineOutput {
    token_ids: Vec<u32>,
    tokens: Option<Vec<String>>,
    text: Option<String>,
    output_type: OutputType,
    cum_log_probs: Option<f64>,
    log_probs: Option<Vec<f64>>,
    top_logprobs: Option<Json>,
    finish_reason: Option<String>,
    index: Option<u32>,
}

// ---- output

fn out_dir() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..");
    root.join("kvrouter-core/src/test/resources/golden/dynamo-serde")
}

// ---- discovery: lib/runtime/src/discovery/mod.rs @020f5c17 (DiscoveryInstance, EventScope,
// ---- EventTransport; the mid EventChannel from kv_store.rs id 55283377990), component.rs
// ---- @01207e79 (Instance, TransportType), lib/llm/src/model_card.rs @01159fcc (the card),
// ---- lib/llm/src/local_model/runtime_config.rs @000a36a7, common/checked_file.rs @63728476

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum TransportType {
    Tcp(String),
    #[serde(rename = "nats_tcp")]
    Nats(String),
    Http(String),
}

#[derive(Serialize)]
struct Instance {
    component: String,
    endpoint: String,
    namespace: String,
    instance_id: u64,
    transport: TransportType,
}

#[derive(Serialize)]
struct EndpointId {
    namespace: String,
    component: String,
    name: String,
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(dead_code)]
enum EventScope {
    Namespace { name: String },
    Component { namespace: String, component: String },
    Endpoint { endpoint: EndpointId },
}

#[derive(Serialize)]
#[serde(tag = "kind", content = "config")]
#[allow(dead_code)]
enum EventTransport {
    Nats { subject_prefix: String },
    Zmq { endpoint: String },
    ZmqBroker { xsub_endpoints: Vec<String>, xpub_endpoints: Vec<String> },
}

#[derive(Serialize)]
#[serde(tag = "type")]
#[allow(dead_code)]
enum DiscoveryInstance {
    Endpoint(Instance),
    Model {
        namespace: String,
        component: String,
        endpoint: String,
        instance_id: u64,
        card_json: serde_json::Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model_suffix: Option<String>,
    },
    EventChannel {
        scope: EventScope,
        topic: String,
        instance_id: u64,
        transport: EventTransport,
    },
}

/// The mid versions' event channel (namespace and component instead of a scope).
#[derive(Serialize)]
#[serde(tag = "type")]
enum MidDiscoveryInstance {
    EventChannel {
        namespace: String,
        component: String,
        topic: String,
        instance_id: u64,
        transport: EventTransport,
    },
}

#[derive(Serialize)]
struct CheckedFile {
    path: String,
    checksum: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum ModelInfoType {
    HfConfigJson(CheckedFile),
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum TokenizerKind {
    HfTokenizerJson(CheckedFile),
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum PromptFormatterArtifact {
    HfTokenizerConfigJson(CheckedFile),
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum GenerationConfig {
    HfGenerationConfigJson(CheckedFile),
}

#[derive(Serialize)]
#[allow(dead_code)]
enum ModelInput {
    Text,
    Tokens,
    Tensor,
}

#[derive(Serialize)]
struct ModelRuntimeConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    context_length: Option<u32>,
    total_kv_blocks: Option<u64>,
    max_num_seqs: Option<u64>,
    max_num_batched_tokens: Option<u64>,
    tool_call_parser: Option<String>,
    reasoning_parser: Option<String>,
    data_parallel_start_rank: u32,
    data_parallel_size: u32,
    enable_local_indexer: bool,
}

/// The card fields a kvrouter worker writes (docs/notes/dynamo-discovery.md §1.6); `model_type`
/// is bitflags upstream, written as its formatted string, so a String here.
#[derive(Serialize)]
struct ModelDeploymentCard {
    display_name: String,
    slug: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    source_path: Option<String>,
    model_info: Option<ModelInfoType>,
    tokenizer: Option<TokenizerKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_formatter: Option<PromptFormatterArtifact>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gen_config: Option<GenerationConfig>,
    context_length: u32,
    kv_cache_block_size: u32,
    migration_limit: u32,
    model_type: String,
    model_input: ModelInput,
    runtime_config: ModelRuntimeConfig,
    media_decoder: Option<()>,
    media_fetcher: Option<()>,
}

fn checked(hex_digit: char, path: &str, size: u64) -> CheckedFile {
    CheckedFile {
        path: format!("hf://Qwen/Qwen3-0.6B/{}", path),
        checksum: format!("blake3:{}", hex_digit.to_string().repeat(64)),
        size: Some(size),
    }
}

fn write_discovery() {
    let lease: u64 = 7587888160958627365; // 694d98147d54be25
    let endpoint = |transport| {
        DiscoveryInstance::Endpoint(Instance {
            component: "backend".to_string(),
            endpoint: "generate".to_string(),
            namespace: "dynamo".to_string(),
            instance_id: lease,
            transport,
        })
    };
    write_text(
        "discovery_instance_tcp.json",
        &serde_json::to_string(&endpoint(TransportType::Tcp(
            "10.0.0.5:43117/694d98147d54be25/generate".to_string(),
        )))
        .unwrap(),
    );
    write_text(
        "discovery_instance_nats.json",
        &serde_json::to_string(&endpoint(TransportType::Nats(
            "dynamo_backend.generate-694d98147d54be25".to_string(),
        )))
        .unwrap(),
    );
    // Dynamo's HTTP request plane (December 2025 to May 2026): the endpoint's URL under
    // DYN_HTTP_RPC_ROOT_PATH, as lib/runtime/src/component/endpoint.rs wrote it then
    write_text(
        "discovery_instance_http.json",
        &serde_json::to_string(&endpoint(TransportType::Http(
            "http://10.0.0.5:8888/v1/rpc/generate".to_string(),
        )))
        .unwrap(),
    );
    let card = ModelDeploymentCard {
        display_name: "Qwen/Qwen3-0.6B".to_string(),
        slug: "qwen_qwen3_0_6b_8ee6210e".to_string(),
        source_path: None,
        model_info: Some(ModelInfoType::HfConfigJson(checked('1', "config.json", 726))),
        tokenizer: Some(TokenizerKind::HfTokenizerJson(checked('2', "tokenizer.json", 11422654))),
        prompt_formatter: Some(PromptFormatterArtifact::HfTokenizerConfigJson(checked(
            '3',
            "tokenizer_config.json",
            9732,
        ))),
        gen_config: Some(GenerationConfig::HfGenerationConfigJson(checked(
            '4',
            "generation_config.json",
            239,
        ))),
        context_length: 40960,
        kv_cache_block_size: 16,
        migration_limit: 0,
        model_type: "Chat | Completions".to_string(),
        model_input: ModelInput::Tokens,
        runtime_config: ModelRuntimeConfig {
            context_length: Some(40960),
            total_kv_blocks: Some(8192),
            max_num_seqs: Some(256),
            max_num_batched_tokens: Some(8192),
            tool_call_parser: None,
            reasoning_parser: None,
            data_parallel_start_rank: 0,
            data_parallel_size: 1,
            enable_local_indexer: true,
        },
        media_decoder: None,
        media_fetcher: None,
    };
    let model = DiscoveryInstance::Model {
        namespace: "dynamo".to_string(),
        component: "backend".to_string(),
        endpoint: "generate".to_string(),
        instance_id: lease,
        card_json: serde_json::to_value(&card).unwrap(),
        model_suffix: None,
    };
    write_text("discovery_model_card.json", &serde_json::to_string(&model).unwrap());
    let channel = DiscoveryInstance::EventChannel {
        scope: EventScope::Endpoint {
            endpoint: EndpointId {
                namespace: "dynamo".to_string(),
                component: "backend".to_string(),
                name: "generate".to_string(),
            },
        },
        topic: "kv-events".to_string(),
        instance_id: 7648466190688369, // 1b2c3d4e5f6071
        transport: EventTransport::Zmq {
            endpoint: "tcp://10.0.0.5:41234".to_string(),
        },
    };
    write_text(
        "discovery_event_channel_scoped.json",
        &serde_json::to_string(&channel).unwrap(),
    );
    let mid = MidDiscoveryInstance::EventChannel {
        namespace: "dynamo".to_string(),
        component: "backend".to_string(),
        topic: "kv-events".to_string(),
        instance_id: lease,
        transport: EventTransport::Nats {
            subject_prefix: "namespace.dynamo.component.backend".to_string(),
        },
    };
    write_text(
        "discovery_event_channel_component.json",
        &serde_json::to_string(&mid).unwrap(),
    );
}

fn write_hex(name: &str, about: &str, bytes: &[u8]) {
    let mut text = String::new();
    for line in about.lines() {
        text.push_str("# ");
        text.push_str(line);
        text.push('\n');
    }
    for chunk in bytes.chunks(16) {
        let row: Vec<String> = chunk.iter().map(|b| format!("{:02x}", b)).collect();
        text.push_str(&row.join(" "));
        text.push('\n');
    }
    fs::write(out_dir().join(name), text).expect("write fixture");
}

fn write_text(name: &str, text: &str) {
    fs::write(out_dir().join(name), text).expect("write fixture");
}

fn example_stored() -> RouterEvent {
    RouterEvent {
        worker_id: 7,
        storage_tier: StorageTier::Device,
        residency_domain: Some(ResidencyDomain::Worker),
        event: KvCacheEvent {
            event_id: 1,
            data: KvCacheEventData::Stored(KvCacheStoreData {
                parent_hash: None,
                start_position: None,
                blocks: vec![KvCacheStoredBlockData {
                    block_hash: 0x1234,
                    tokens_hash: 0xABCD,
                    mm_extra_info: None,
                }],
            }),
            dp_rank: 0,
        },
    }
}

fn main() {
    fs::create_dir_all(out_dir()).expect("fixture directory");
    write_discovery();

    let batch = rmp_serde::to_vec_named(&vec![example_stored()]).unwrap();
    let envelope = EventEnvelope {
        publisher_id: 1,
        sequence: 0,
        published_at: 1_700_000_000_000,
        topic: "kv-events".to_string(),
        payload: batch,
    };
    write_hex(
        "s3_batch_envelope.hex",
        "rmp_serde::to_vec_named(EventEnvelope{publisher_id 1, sequence 0, published_at\n\
         1700000000000, topic \"kv-events\", payload: to_vec_named(vec![RouterEvent{worker 7,\n\
         device, residency worker, event 1 stored(parent None, start None, [{0x1234, 0xABCD,\n\
         None}]), dp 0}])}): the whole NATS message of Dynamo v1.5's event plane.",
        &rmp_serde::to_vec_named(&envelope).unwrap(),
    );

    let removed_cleared = vec![
        RouterEvent {
            worker_id: 7,
            storage_tier: StorageTier::Device,
            residency_domain: Some(ResidencyDomain::Worker),
            event: KvCacheEvent {
                event_id: 2,
                data: KvCacheEventData::Removed(KvCacheRemoveData {
                    block_hashes: vec![0x1234, u64::MAX],
                }),
                dp_rank: 0,
            },
        },
        RouterEvent {
            worker_id: 7,
            storage_tier: StorageTier::Device,
            residency_domain: Some(ResidencyDomain::Worker),
            event: KvCacheEvent {
                event_id: 3,
                data: KvCacheEventData::Cleared,
                dp_rank: 1,
            },
        },
    ];
    write_hex(
        "s3_removed_cleared_payload.hex",
        "rmp_serde::to_vec_named of a removal of 0x1234 and u64::MAX (event 2, dp 0) then a\n\
         clear (event 3, dp 1), worker 7.",
        &rmp_serde::to_vec_named(&removed_cleared).unwrap(),
    );

    let load = ActiveLoad {
        worker_id: 7,
        dp_rank: 0,
        active_decode_blocks: None,
        active_prefill_tokens: None,
        kv_used_blocks: Some(42),
    };
    write_hex(
        "active_load.hex",
        "rmp_serde::to_vec_named(ActiveLoad{worker 7, dp 0, decode None, prefill None, used 42}).",
        &rmp_serde::to_vec_named(&load).unwrap(),
    );

    let query = WorkerKvQueryRequest {
        worker_id: 7,
        dp_rank: 1,
        start_event_id: Some(3),
        end_event_id: None,
        supports_tree_dump_failed: false,
        kind: WorkerKvQueryKind::Recovery,
    };
    write_text(
        "worker_kv_query_request.json",
        &serde_json::to_string(&query).unwrap(),
    );

    let plain = || PreprocessedRequest {
        model: "mock-model".to_string(),
        token_ids: vec![1, 2, 3],
        generate_request: None,
        prompt_embeds: None,
        multi_modal_data: None,
        mm_routing_info: None,
        stop_conditions: StopConditions {
            max_tokens: Some(4),
            ..Default::default()
        },
        sampling_options: SamplingOptions::default(),
        output_options: OutputOptions::default(),
        eos_token_ids: vec![],
        mdc_sum: None,
        annotations: vec![],
        routing: None,
        router_config_override: None,
        prefill_result: None,
        encoder_result: None,
        migration_link: None,
        bootstrap_info: None,
        extra_args: None,
        require_reasoning: false,
        router: None,
        agent_context: None,
        mm_processor_kwargs: None,
        request_timestamp_ms: None,
        is_probe: false,
    };
    let request = plain();
    write_text(
        "preprocessed_request_plain.json",
        &serde_json::to_string(&request).unwrap(),
    );

    // a request in a cache namespace, routed to data-parallel rank 1
    let salted = PreprocessedRequest {
        routing: Some(RoutingHints {
            dp_rank: Some(1),
            cache_namespace: Some("key/alice/tenant-a".to_string()),
            ..Default::default()
        }),
        ..plain()
    };
    write_text(
        "preprocessed_request_cache_salt.json",
        &serde_json::to_string(&salted).unwrap(),
    );

    // payload_codec "msgpack": the body and every response item through rmp_serde (§10.9)
    let sampled = PreprocessedRequest {
        token_ids: vec![1, 2, 300],
        stop_conditions: StopConditions {
            max_tokens: Some(4),
            stop_token_ids: Some(vec![7]),
            ignore_eos: Some(false),
            ..Default::default()
        },
        sampling_options: SamplingOptions {
            presence_penalty: Some(1.5),
            temperature: Some(0.5),
            top_p: Some(0.25),
            top_k: Some(-1),
            seed: Some(1234),
            ..Default::default()
        },
        output_options: OutputOptions {
            logprobs: Some(2),
            skip_special_tokens: Some(true),
            ..Default::default()
        },
        eos_token_ids: vec![2],
        routing: Some(RoutingHints {
            dp_rank: Some(1),
            ..Default::default()
        }),
        ..request
    };
    write_hex(
        "msgpack_request_body.hex",
        "rmp_serde::to_vec_named of a PreprocessedRequest with sampling options set (the value of\n\
         golden/request-plane/msgpack_request_body.hex).",
        &rmp_serde::to_vec_named(&sampled).unwrap(),
    );

    let rust_item = NetworkStreamWrapper {
        data: Some(Annotated {
            data: Some(LlmEngineOutput {
                token_ids: vec![11],
                tokens: None,
                text: None,
                output_type: OutputType::Text,
                cum_log_probs: None,
                log_probs: None,
                top_logprobs: None,
                finish_reason: None,
                index: None,
            }),
            id: None,
            event: None,
            comment: None,
        }),
        complete_final: false,
    };
    write_hex(
        "msgpack_rust_item.hex",
        "rmp_serde::to_vec_named of a response item as a Rust engine sends it.",
        &rmp_serde::to_vec_named(&rust_item).unwrap(),
    );

    let last: NetworkStreamWrapper<Annotated<LlmEngineOutput>> = NetworkStreamWrapper {
        data: None,
        complete_final: true,
    };
    write_hex(
        "msgpack_complete_final.hex",
        "rmp_serde::to_vec_named of the stream's last item.",
        &rmp_serde::to_vec_named(&last).unwrap(),
    );
}
