package io.kvrouter.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  private static final Map<String, List<String>> ONE_MOCK = Map.of("mock-workers", List.of("1"));

  @TempDir Path dir;

  @Test
  void defaults_matchDynamo() {
    RouterConfig config = ConfigLoader.load(ONE_MOCK, Map.of(), null);
    assertThat(config.http().host()).isEqualTo("0.0.0.0");
    assertThat(config.http().port()).isEqualTo(8000);
    assertThat(config.http().bodyLimitBytes()).isEqualTo(45L * 1024 * 1024);
    assertThat(config.routerMode()).isEqualTo(RouterMode.ROUND_ROBIN);
    assertThat(config.requestPlane()).isEqualTo(RequestPlaneKind.TCP);
    assertThat(config.tcp().poolSize()).isEqualTo(100);
    assertThat(config.tcp().requestTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.tcp().maxMessageSize()).isEqualTo(32 * 1024 * 1024);
    assertThat(config.tcp().responseStreamHost()).isEqualTo("0.0.0.0");
    assertThat(config.model().servedName()).isEqualTo("mock-model");
    assertThat(config.kv()).isEqualTo(KvRouterConfig.DEFAULTS);
    assertThat(config.http().busyStatusCode()).isEqualTo(503);
    assertThat(config.mockWorkers().engine().numGpuBlocks()).isEqualTo(16384);
    assertThat(config.http().connections()).isEqualTo(ConnectionLimits.DEFAULTS);
    assertThat(config.migrationLimit()).isZero();
  }

  @Test
  void migrationLimit_comesFromItsFlagOrDynamosVariable_andIsNeverNegative() {
    Map<String, List<String>> flags =
        Map.of("mock-workers", List.of("1"), "migration-limit", List.of("3"));
    assertThat(ConfigLoader.load(flags, Map.of(), null).migrationLimit()).isEqualTo(3);
    assertThat(
            ConfigLoader.load(ONE_MOCK, Map.of("DYN_MIGRATION_LIMIT", "2"), null).migrationLimit())
        .isEqualTo(2);
    assertThatThrownBy(() -> ConfigLoader.load(ONE_MOCK, Map.of("DYN_MIGRATION_LIMIT", "-1"), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("migration-limit");
  }

  @Test
  void responseStreams_callHomeByDefault_muxByDynamosVariable_overriddenPerWorker() {
    Map<String, List<String>> workers =
        Map.of(
            "worker",
            List.of(
                "id=old,address=10.0.0.5:9001",
                "id=new,address=10.0.0.6:9001,response-stream=mux",
                "id=pinned,address=10.0.0.7:9001,response-stream=call-home"));

    ResponseStreams byDefault = ConfigLoader.load(workers, Map.of(), null).tcp().responseStreams();
    assertThat(byDefault.forWorker("old")).isEqualTo(ResponseStreamKind.CALL_HOME);
    assertThat(byDefault.forWorker("new")).isEqualTo(ResponseStreamKind.MUX);
    assertThat(byDefault.forWorker("pinned")).isEqualTo(ResponseStreamKind.CALL_HOME);

    ResponseStreams mux =
        ConfigLoader.load(workers, Map.of("DYN_TCP_RESPONSE_MUX", "1"), null)
            .tcp()
            .responseStreams();
    assertThat(mux.forWorker("old")).isEqualTo(ResponseStreamKind.MUX);
    assertThat(mux.forWorker("pinned")).isEqualTo(ResponseStreamKind.CALL_HOME);
    assertThat(
            ConfigLoader.load(workers, Map.of("DYN_TCP_RESPONSE_MUX", ""), null)
                .tcp()
                .responseStreams()
                .forWorker("old"))
        .as("empty, as Dynamo reads it, is off")
        .isEqualTo(ResponseStreamKind.CALL_HOME);

    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("worker", List.of("id=w,address=10.0.0.5:9001,response-stream=quic")),
                    Map.of(),
                    null))
        .hasMessageContaining("response-stream 'quic' is not one of: call-home, mux");
    assertThatThrownBy(
            () -> ConfigLoader.load(workers, Map.of("DYN_TCP_RESPONSE_MUX", "maybe"), null))
        .hasMessageContaining("DYN_TCP_RESPONSE_MUX");
  }

  @Test
  void connectionLimits_comeFromTheirFlags() {
    Map<String, List<String>> flags =
        Map.of(
            "mock-workers", List.of("1"),
            "http-idle-timeout-secs", List.of("90"),
            "http-header-timeout-secs", List.of("2.5"),
            "http-body-timeout-secs", List.of("120"),
            "http-max-connections", List.of("500"));
    assertThat(ConfigLoader.load(flags, Map.of(), null).http().connections())
        .isEqualTo(
            new ConnectionLimits(
                Duration.ofSeconds(90), Duration.ofMillis(2500), Duration.ofSeconds(120), 500));
  }

  @Test
  void allowedOrigins_areOffByDefault_andComeFromRepeatedOrCommaSeparatedFlags() {
    assertThat(ConfigLoader.load(ONE_MOCK, Map.of(), null).http().cors().enabled()).isFalse();
    Map<String, List<String>> flags =
        Map.of(
            "mock-workers",
            List.of("1"),
            "allowed-origins",
            List.of("HTTP://LocalHost:5173, https://chat.corp.test", "http://127.0.0.1:8080"));
    CorsOrigins cors = ConfigLoader.load(flags, Map.of(), null).http().cors();
    assertThat(cors.origins())
        .containsExactly(
            "http://localhost:5173", "https://chat.corp.test", "http://127.0.0.1:8080");
    assertThat(cors.allows("https://chat.corp.test")).isTrue();
    assertThat(cors.allows("https://other.corp.test")).isFalse();
    assertThat(cors.allows(null)).isFalse();
    CorsOrigins any =
        ConfigLoader.load(
                Map.of("mock-workers", List.of("1"), "allowed-origins", List.of("*")),
                Map.of(),
                null)
            .http()
            .cors();
    assertThat(any.anyOrigin()).isTrue();
    assertThat(any.allows("https://anything.test")).isTrue();
  }

  @Test
  void anOriginWithAPath_aBadScheme_orStarAmongOthers_isRefusedByName() {
    for (String bad :
        new String[] {
          "https://chat.corp.test/",
          "ftp://chat.corp.test",
          "chat.corp.test",
          "*,https://a.test",
          ""
        }) {
      Map<String, List<String>> flags =
          Map.of("mock-workers", List.of("1"), "allowed-origins", List.of(bad));
      assertThatThrownBy(() -> ConfigLoader.load(flags, Map.of(), null))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("--allowed-origins");
    }
  }

  @Test
  void connectionCapOfZero_isRefusedByName() {
    Map<String, List<String>> flags =
        Map.of("mock-workers", List.of("1"), "http-max-connections", List.of("0"));
    assertThatThrownBy(() -> ConfigLoader.load(flags, Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("http-max-connections");
  }

  @Test
  void kvSettings_comeFromFlagsAndDynamosVariables() {
    Map<String, List<String>> flags =
        Map.of(
            "mock-workers", List.of("1"),
            "router-mode", List.of("kv"),
            "kv-overlap-score-weight", List.of("2.5"),
            "active-decode-blocks-threshold", List.of("0.85"),
            "busy-status-code", List.of("529"));
    Map<String, String> env =
        Map.of(
            "DYN_ROUTER_TEMPERATURE", "0.5",
            "DYN_ACTIVE_PREFILL_TOKENS_THRESHOLD", "8192",
            "DYN_ROUTER_TTL_SECS", "30",
            "DYN_ROUTER_MAX_TREE_SIZE", "1000",
            "DYN_ROUTER_PRUNE_TARGET_RATIO", "0.5");

    RouterConfig config = ConfigLoader.load(flags, env, null);

    assertThat(config.routerMode()).isEqualTo(RouterMode.KV);
    assertThat(config.kv())
        .isEqualTo(
            new KvRouterConfig(
                true,
                2.5,
                0.5,
                OptionalDouble.of(0.85),
                OptionalLong.of(8192),
                Duration.ofSeconds(30),
                1000,
                0.5));
    assertThat(config.http().busyStatusCode()).isEqualTo(529);
  }

  @Test
  void kvModeWithEvents_needsEveryWorkersEventEndpoint() {
    Map<String, List<String>> flags =
        Map.of("router-mode", List.of("kv"), "worker", List.of("id=w1,address=h:1"));
    assertThatThrownBy(() -> ConfigLoader.load(flags, Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("Worker 'w1' publishes no KV events")
        .hasMessageContaining("--no-kv-events");

    RouterConfig approximate = ConfigLoader.load(flags, Map.of("DYN_KV_EVENTS", "false"), null);
    assertThat(approximate.kv().kvEvents()).isFalse();
  }

  @Test
  void kvCost_isDynamosUnlessPredictedTtftIsAskedFor() {
    Map<String, List<String>> kv =
        Map.of("mock-workers", List.of("1"), "router-mode", List.of("kv"));
    assertThat(ConfigLoader.load(kv, Map.of(), null).kv().cost()).isEqualTo(KvCost.DYNAMO);
    Map<String, List<String>> ttft =
        Map.of(
            "mock-workers", List.of("1"),
            "router-mode", List.of("kv"),
            "router-kv-cost", List.of("predicted-ttft"));
    assertThat(ConfigLoader.load(ttft, Map.of(), null).kv().cost())
        .isEqualTo(KvCost.PREDICTED_TTFT);
  }

  @Test
  void mockSpeedupRatio_turnsTheTimingModelOn() {
    assertThat(ConfigLoader.load(ONE_MOCK, Map.of(), null).mockWorkers().engine().timing())
        .isEqualTo(EngineTiming.FIXED);
    Map<String, List<String>> timed =
        Map.of("mock-workers", List.of("2"), "mock-speedup-ratio", List.of("10"));
    SimulatedEngineConfig engine = ConfigLoader.load(timed, Map.of(), null).mockWorkers().engine();
    assertThat(engine.timing()).isEqualTo(EngineTiming.MOCKER);
    assertThat(engine.speedupRatio()).isEqualTo(10.0);
  }

  @Test
  void busyThresholds_needKvMode() {
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    ONE_MOCK, Map.of("DYN_ACTIVE_PREFILL_TOKENS_THRESHOLD", "100"), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--active-prefill-tokens-threshold needs --router-mode kv or approx");
    assertThat(
            ConfigLoader.load(
                    Map.of(
                        "mock-workers",
                        List.of("1"),
                        "router-mode",
                        List.of("approx"),
                        "active-prefill-tokens-threshold",
                        List.of("100")),
                    Map.of(),
                    null)
                .kv()
                .activePrefillTokensThreshold())
        .hasValue(100);
  }

  @Test
  void replicaSync_isOffByDefault_onByFlagOrDynamosVariable_forSharedNumberedWorkers() {
    Map<String, List<String>> approx =
        Map.of("router-mode", List.of("approx"), "worker", List.of("id=11,address=h:1"));
    assertThat(ConfigLoader.load(approx, Map.of(), null).replicaSync()).isFalse();
    assertThat(
            ConfigLoader.load(approx, Map.of("DYN_ROUTER_REPLICA_SYNC", "true"), null)
                .replicaSync())
        .isTrue();
    Map<String, List<String>> flagged = new java.util.HashMap<>(approx);
    flagged.put("router-replica-sync", List.of("true"));
    assertThat(ConfigLoader.load(flagged, Map.of(), null).replicaSync()).isTrue();

    Map<String, List<String>> roundRobin = new java.util.HashMap<>(flagged);
    roundRobin.put("router-mode", List.of("round-robin"));
    assertThatThrownBy(() -> ConfigLoader.load(roundRobin, Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--router-replica-sync needs --router-mode kv or approx");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of(
                        "mock-workers",
                        List.of("2"),
                        "router-mode",
                        List.of("approx"),
                        "router-replica-sync",
                        List.of("true")),
                    Map.of(),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--mock-workers run inside this router");
    Map<String, List<String>> named = new java.util.HashMap<>(flagged);
    named.put("worker", List.of("id=w1,address=h:1"));
    assertThatThrownBy(() -> ConfigLoader.load(named, Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("Worker id 'w1' cannot be shared with --router-replica-sync");
  }

  @Test
  void indexSnapshots_needTheKvIndexOnTheNatsOrKafkaPlane_andTheirKnobsNeedThem() {
    Map<String, List<String>> nats =
        Map.of(
            "router-mode", List.of("kv"),
            "event-plane", List.of("nats"),
            "worker", List.of("id=11,address=h:1"));
    assertThat(ConfigLoader.load(nats, Map.of(), null).indexSnapshots())
        .isEqualTo(IndexSnapshotConfig.OFF);
    Map<String, List<String>> on = new java.util.HashMap<>(nats);
    on.put("router-index-snapshots", List.of("true"));
    assertThat(
            ConfigLoader.load(
                    on,
                    Map.of(
                        "DYN_ROUTER_SNAPSHOT_THRESHOLD", "500", "DYN_ROUTER_RESET_STATES", "true"),
                    null)
                .indexSnapshots())
        .isEqualTo(new IndexSnapshotConfig(true, 500, true));

    Map<String, List<String>> zmq = new java.util.HashMap<>(on);
    zmq.put("event-plane", List.of("zmq"));
    zmq.put("worker", List.of("id=11,address=h:1,kv-events=tcp://h:5557"));
    assertThatThrownBy(() -> ConfigLoader.load(zmq, Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--router-index-snapshots keeps the snapshot where the event plane");
    Map<String, List<String>> approx = new java.util.HashMap<>(on);
    approx.put("router-mode", List.of("approx"));
    assertThatThrownBy(() -> ConfigLoader.load(approx, Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--router-index-snapshots needs --router-mode kv with KV events");
    assertThatThrownBy(
            () -> ConfigLoader.load(nats, Map.of("DYN_ROUTER_RESET_STATES", "true"), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--router-reset-states resets index snapshots");
    // a Dynamo deployment's threshold, or a reset turned off, without snapshots: nothing to do
    assertThat(
            ConfigLoader.load(
                    nats,
                    Map.of(
                        "DYN_ROUTER_SNAPSHOT_THRESHOLD",
                        "10000",
                        "DYN_ROUTER_RESET_STATES",
                        "false"),
                    null)
                .indexSnapshots())
        .isEqualTo(IndexSnapshotConfig.OFF);
    Map<String, List<String>> zeroThreshold = new java.util.HashMap<>(on);
    zeroThreshold.put("router-snapshot-threshold", List.of("0"));
    assertThatThrownBy(() -> ConfigLoader.load(zeroThreshold, Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("router-snapshot-threshold");
  }

  @Test
  void apiKeys_fromFlagsAndFile_neverInAnError_andTheAdminKeyIsItsOwn() throws IOException {
    Path file =
        Files.writeString(
            dir.resolve("keys"),
            "# the teams\nteam-a sk-aaaaaaaa-0123456789\n\nsk-bbbbbbbb-0123456789\n");
    RouterConfig config =
        ConfigLoader.load(
            Map.of(
                "mock-workers", List.of("1"),
                "api-key", List.of("sk-flag-1-0123456789", "sk-flag-2-0123456789"),
                "api-keys-file", List.of(file.toString()),
                "admin-api-key", List.of("sk-admin-0123456789")),
            Map.of(),
            null);
    assertThat(config.apiKeys().keys())
        .extracting(ApiKey::key)
        .containsExactly("sk-flag-1-0123456789", "sk-flag-2-0123456789");
    assertThat(config.apiKeys().keysFile()).isEqualTo(file);
    assertThat(config.apiKeys().toString()).doesNotContain("sk-");
    assertThat(ApiKeyFile.read(file))
        .extracting(ApiKey::name)
        .containsExactly("team-a", ApiKey.unnamed("sk-bbbbbbbb-0123456789").name());
    assertThat(ApiKey.unnamed("sk-bbbbbbbb-0123456789").name()).matches("key-[0-9a-f]{8}");
    assertThat(ConfigLoader.load(ONE_MOCK, Map.of(), null).apiKeys()).isEqualTo(ApiKeyConfig.NONE);

    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("mock-workers", List.of("1"), "api-key", List.of("sk-short")),
                    Map.of(),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--api-key")
        .hasMessageContaining("16 to 512")
        .hasMessageNotContaining("sk-short");
    Path swapped = Files.writeString(dir.resolve("swapped-keys"), "sk-team-c-0123456789 team-c\n");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of(
                        "mock-workers", List.of("1"), "api-keys-file", List.of(swapped.toString())),
                    Map.of(),
                    null))
        .as("a key where the name goes is refused without being repeated")
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("line 1")
        .hasMessageNotContaining("sk-team-c-0123456789");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of(
                        "mock-workers", List.of("1"),
                        "api-key", List.of("sk-same-0123456789"),
                        "admin-api-key", List.of("sk-same-0123456789")),
                    Map.of(),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("also a client key")
        .hasMessageNotContaining("sk-same-0123456789");
    Path bad =
        Files.writeString(
            dir.resolve("bad-keys"), "team-a sk-x1-0123456789abc\nteam-a sk-secret-2-0123456789\n");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("mock-workers", List.of("1"), "api-keys-file", List.of(bad.toString())),
                    Map.of(),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("line 2: the name team-a is taken")
        .hasMessageNotContaining("sk-secret-2-0123456789");
  }

  @Test
  void rateLimits_defaultFromFlags_overriddenPerKeyInTheFile_andBadValuesRefused()
      throws IOException {
    assertThat(ConfigLoader.load(ONE_MOCK, Map.of(), null).apiKeys().limits())
        .isEqualTo(RateLimits.NONE);
    Path file =
        Files.writeString(
            dir.resolve("keys"),
            "team-a sk-aaaaaaaa-0123456789 rpm=5 tpm=none\n"
                + "team-b sk-bbbbbbbb-0123456789\n"
                + "team-c sk-cccccccc-0123456789 concurrency=2\n");
    RouterConfig config =
        ConfigLoader.load(
            Map.of(
                "mock-workers", List.of("1"),
                "api-keys-file", List.of(file.toString()),
                "rate-limit-requests-per-minute", List.of("60"),
                "rate-limit-tokens-per-minute", List.of("10000"),
                "max-concurrent-requests-per-key", List.of("8")),
            Map.of(),
            null);
    RateLimits defaults = config.apiKeys().limits();
    assertThat(defaults).isEqualTo(new RateLimits(60, 10000, 8));
    assertThat(config.apiKeys().fileKeys())
        .extracting(k -> k.limits().over(defaults))
        .containsExactly(
            new RateLimits(5, 0, 8), new RateLimits(60, 10000, 8), new RateLimits(60, 10000, 2));

    for (String flag :
        List.of(
            "rate-limit-requests-per-minute",
            "rate-limit-tokens-per-minute",
            "max-concurrent-requests-per-key")) {
      for (String value : List.of("-1", "many", "1000000000001")) {
        assertThatThrownBy(
                () ->
                    ConfigLoader.load(
                        Map.of("mock-workers", List.of("1"), flag, List.of(value)), Map.of(), null))
            .as(flag + " " + value)
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("--" + flag);
      }
    }
    Map<String, String> badLines =
        Map.of(
            "team-a sk-aaaaaaaa-0123456789 rpm=0", "rpm= is a whole number from 1",
            "team-a sk-aaaaaaaa-0123456789 tpm=lots", "tpm= is a whole number from 1",
            "team-a sk-aaaaaaaa-0123456789 rpm=1 rpm=2", "rpm= is given twice",
            "team-a sk-aaaaaaaa-0123456789 burst=3", "expected [NAME] KEY, then limits",
            "sk-aaaaaaaa-0123456789 rpm=3", "a key's limits come after its name and the key");
    for (Map.Entry<String, String> bad : badLines.entrySet()) {
      Path badFile = Files.writeString(dir.resolve("bad-limits"), "# x\n" + bad.getKey() + "\n");
      assertThatThrownBy(
              () ->
                  ConfigLoader.load(
                      Map.of(
                          "mock-workers",
                          List.of("1"),
                          "api-keys-file",
                          List.of(badFile.toString())),
                      Map.of(),
                      null))
          .as(bad.getKey())
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("line 2: " + bad.getValue())
          .hasMessageNotContaining("sk-aaaaaaaa-0123456789");
    }
  }

  @Test
  void clientKeyNames_areUnique_andAdminIsTheAdminKeys() throws IOException {
    Path file = Files.writeString(dir.resolve("admin-keys"), "admin sk-admin-like-0123456789\n");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("mock-workers", List.of("1"), "api-keys-file", List.of(file.toString())),
                    Map.of(),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("the name admin is the admin key's")
        .hasMessageNotContaining("sk-admin-like");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of(
                        "mock-workers", List.of("1"),
                        "api-key", List.of("sk-twice-0123456789", "sk-twice-0123456789")),
                    Map.of(),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("two client keys are named key-")
        .hasMessageNotContaining("sk-twice");
  }

  @Test
  void cacheSaltPerKey_isOffByDefault_needsClientKeys_andIsReadFromFlagOrFile() throws IOException {
    assertThat(ConfigLoader.load(ONE_MOCK, Map.of(), null).apiKeys().cacheSaltPerKey()).isFalse();
    Map<String, List<String>> withKey =
        Map.of(
            "mock-workers", List.of("1"),
            "api-key", List.of("sk-flag-1-0123456789"),
            "cache-salt-per-key", List.of("true"));
    assertThat(ConfigLoader.load(withKey, Map.of(), null).apiKeys().cacheSaltPerKey()).isTrue();
    Path keys = Files.writeString(dir.resolve("salt-keys"), "team-a sk-aaaaaaaa-0123456789\n");
    assertThat(
            ConfigLoader.load(
                    Map.of(),
                    Map.of(),
                    write(
                        "mock-workers: 1\napi-keys-file: " + keys + "\ncache-salt-per-key: true\n"))
                .apiKeys()
                .cacheSaltPerKey())
        .isTrue();

    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("mock-workers", List.of("1"), "cache-salt-per-key", List.of("true")),
                    Map.of(),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--cache-salt-per-key")
        .hasMessageContaining("needs keys: give --api-key or --api-keys-file");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of(
                        "mock-workers", List.of("1"),
                        "api-key", List.of("sk-flag-1-0123456789"),
                        "cache-salt-per-key", List.of("yes please")),
                    Map.of(),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("cache-salt-per-key");
  }

  @Test
  void tlsFiles_comeTogether_byDynamosNamesOrVariables_andMustBeReadable() throws IOException {
    Path cert = Files.writeString(dir.resolve("c.pem"), "");
    Path key = Files.writeString(dir.resolve("k.pem"), "");
    assertThat(ConfigLoader.load(ONE_MOCK, Map.of(), null).http().tls()).isNull();
    assertThat(
            ConfigLoader.load(
                    ONE_MOCK,
                    Map.of(
                        "DYN_TLS_CERT_PATH", cert.toString(), "DYN_TLS_KEY_PATH", key.toString()),
                    null)
                .http()
                .tls())
        .isEqualTo(new TlsFiles(cert, key));
    assertThatThrownBy(
            () -> ConfigLoader.load(ONE_MOCK, Map.of("DYN_TLS_CERT_PATH", cert.toString()), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--tls-cert-path and --tls-key-path must be given together");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    ONE_MOCK,
                    Map.of(
                        "DYN_TLS_CERT_PATH",
                        cert.toString(),
                        "DYN_TLS_KEY_PATH",
                        dir.resolve("missing.pem").toString()),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--tls-key-path")
        .hasMessageContaining("cannot be read");
  }

  private static RouterConfig withEnv(Map<String, String> env) {
    return ConfigLoader.load(ONE_MOCK, env, null);
  }

  private static void refused(Map<String, String> env, String... said) {
    assertThatThrownBy(() -> withEnv(env))
        .isInstanceOf(ConfigException.class)
        .hasMessageContainingAll(said);
  }

  @Test
  void tcpTls_byDynamosVariables_eachSideChecked() throws IOException {
    String pem = Files.writeString(dir.resolve("p.pem"), "").toString();
    assertThat(withEnv(Map.of()).tcp().tls()).isEqualTo(TcpTls.NONE);
    TcpTls tls =
        withEnv(
                Map.of(
                    "DYN_TCP_TLS_CERT_PATH", pem,
                    "DYN_TCP_TLS_KEY_PATH", pem,
                    "DYN_TCP_TLS_CLIENT_CA_CERT_PATH", pem,
                    "DYN_TCP_TLS_CA_CERT_PATH", pem,
                    "DYN_TCP_TLS_SERVER_NAME", "worker.internal",
                    "DYN_TCP_TLS_HANDSHAKE_TIMEOUT_SECS", "7"))
            .tcp()
            .tls();
    assertThat(tls.server()).isTrue();
    assertThat(tls.mutual()).isTrue();
    assertThat(tls.client()).isTrue();
    assertThat(tls.serverName()).isEqualTo("worker.internal");
    assertThat(tls.handshakeTimeout()).isEqualTo(Duration.ofSeconds(7));
    assertThat(withEnv(Map.of("DYN_TCP_TLS_INSECURE", "1")).tcp().tls().client()).isTrue();

    refused(
        Map.of("DYN_TCP_TLS_CERT_PATH", pem),
        "--tcp-tls-cert-path and --tcp-tls-key-path must be given together");
    refused(
        Map.of("DYN_TCP_TLS_CLIENT_CA_CERT_PATH", pem),
        "--tcp-tls-client-ca-cert-path needs --tcp-tls-cert-path");
    // as in Dynamo, a client certificate alone turns client TLS on (the JVM's CAs), and a server
    // name alone is unused (the plane warns)
    TcpTls certificateOnly =
        withEnv(Map.of("DYN_TCP_TLS_CLIENT_CERT_PATH", pem, "DYN_TCP_TLS_CLIENT_KEY_PATH", pem))
            .tcp()
            .tls();
    assertThat(certificateOnly.client()).isTrue();
    assertThat(certificateOnly.caCertPath()).isNull();
    assertThat(withEnv(Map.of("DYN_TCP_TLS_SERVER_NAME", "w")).tcp().tls().client()).isFalse();
    refused(
        Map.of("DYN_TCP_TLS_CA_CERT_PATH", dir.resolve("missing.pem").toString()),
        "--tcp-tls-ca-cert-path",
        "cannot be read");
  }

  @Test
  void natsSecurity_byDynamosVariables_inDynamosOrder_tlsOnlyWithATlsUrl() throws IOException {
    String pem = Files.writeString(dir.resolve("n.pem"), "").toString();
    String seed = "SUAPNZAPLH6DOKWA6KQQISYLTXVGZFTOBEYX6AMICDXSI52DX2P3IRW6YM";
    assertThat(withEnv(Map.of()).eventPlane().natsServer())
        .isEqualTo(NatsServer.plain("nats://localhost:4222"));
    // user and password beat a token, a token beats an NKey, an NKey beats a credentials file
    assertThat(
            withEnv(
                    Map.of(
                        "NATS_AUTH_USERNAME", "u",
                        "NATS_AUTH_PASSWORD", "p",
                        "NATS_AUTH_TOKEN", "t",
                        "NATS_AUTH_NKEY", seed))
                .eventPlane()
                .natsServer()
                .auth())
        .isEqualTo(NatsAuth.userPassword("u", "p"));
    assertThat(
            withEnv(Map.of("NATS_AUTH_TOKEN", "t", "NATS_AUTH_NKEY", seed))
                .eventPlane()
                .natsServer()
                .auth())
        .isEqualTo(NatsAuth.token("t"));
    assertThat(
            withEnv(Map.of("NATS_AUTH_NKEY", seed, "NATS_AUTH_CREDENTIALS_FILE", pem))
                .eventPlane()
                .natsServer()
                .auth())
        .isEqualTo(NatsAuth.nkey(seed));
    assertThat(withEnv(Map.of("NATS_AUTH_CREDENTIALS_FILE", pem)).eventPlane().natsServer().auth())
        .isEqualTo(NatsAuth.credentialsFile(Path.of(pem)));
    NatsServer tls =
        withEnv(
                Map.of(
                    "NATS_SERVER", "tls://nats.internal:4222",
                    "NATS_TLS_CA_CERT_PATH", pem,
                    "NATS_TLS_CLIENT_CERT_PATH", pem,
                    "NATS_TLS_CLIENT_KEY_PATH", pem))
            .eventPlane()
            .natsServer();
    assertThat(tls.tls()).isTrue();
    assertThat(tls.clientCertPath()).isEqualTo(Path.of(pem));

    // TLS settings with a plain URL stop only a connection (a router without NATS starts) ...
    NatsServer plainWithTls =
        withEnv(Map.of("NATS_TLS_CA_CERT_PATH", pem)).eventPlane().natsServer();
    assertThatThrownBy(plainWithTls::checkTls)
        .hasMessageContaining("need tls:// NATS URLs, as Dynamo requires");
    assertThatThrownBy(
            withEnv(Map.of("NATS_TLS_INSECURE", "true")).eventPlane().natsServer()::checkTls)
        .hasMessageContaining("need tls:// NATS URLs");
    // ... as does a list that mixes schemes
    assertThatThrownBy(NatsServer.plain("tls://a:4222,nats://b:4222")::checkTls)
        .hasMessageContaining("mix tls:// with plain ones");
    assertThat(NatsServer.plain("tls://a:4222, tls://b:4222").tls()).isTrue();
    assertThat(NatsServer.plain("opentls://a:4222").tls()).isFalse();
    refused(
        Map.of("NATS_AUTH_USERNAME", "u"),
        "--nats-auth-username and --nats-auth-password must be given together");
    refused(Map.of("NATS_AUTH_NKEY", "SUnot-a-seed"), "--nats-auth-nkey");
    // secrets are never repeated in an error
    assertThatThrownBy(() -> withEnv(Map.of("NATS_AUTH_PASSWORD", "hunter2-secret")))
        .isInstanceOf(ConfigException.class)
        .hasMessageNotContaining("hunter2-secret");
    assertThatThrownBy(() -> withEnv(Map.of("NATS_AUTH_NKEY", "SUnot-a-seed-hunter2")))
        .hasMessageNotContaining("hunter2");
    // credentials written in the URL stay out of what is shown
    assertThat(NatsServer.plain("nats://me:pw@nats:4222,nats://me:pw@other:4222").toString())
        .isEqualTo("nats://nats:4222,nats://other:4222");
    assertThat(NatsServer.redact("Unable to connect to NATS servers: [nats://u:p@h:4222]"))
        .doesNotContain("u:p");
  }

  @Test
  void approxMode_needsNoKvEventSources() {
    RouterConfig config =
        ConfigLoader.load(
            Map.of("router-mode", List.of("approx"), "worker", List.of("id=w1,address=h:1")),
            Map.of(),
            null);
    assertThat(config.routerMode()).isEqualTo(RouterMode.APPROX);
  }

  @Test
  void invalidKvValues_areRejectedByName() {
    for (String[] bad :
        new String[][] {
          {"active-decode-blocks-threshold", "1.5"},
          {"router-temperature", "-1"},
          {"kv-overlap-score-weight", "NaN"},
          {"busy-status-code", "500"},
          {"router-prune-target-ratio", "0"},
          {"mock-num-gpu-blocks", "0"},
          {"mock-timing-model", "exact"},
          {"mock-watermark", "1"},
          {"router-kv-cost", "fastest"},
          {"mock-speedup-ratio", "0"},
        }) {
      Map<String, List<String>> flags =
          Map.of(
              "mock-workers", List.of("1"), "router-mode", List.of("kv"), bad[0], List.of(bad[1]));
      assertThatThrownBy(() -> ConfigLoader.load(flags, Map.of(), null))
          .as(bad[0])
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("--" + bad[0])
          .hasMessageContaining("'" + bad[1] + "'");
    }
  }

  @Test
  void contextLength_isTheModelsUnlessGiven_andMustBePositive() {
    assertThat(ConfigLoader.load(ONE_MOCK, Map.of(), null).model().contextLength()).isNull();
    Map<String, List<String>> given =
        Map.of("mock-workers", List.of("1"), "context-length", List.of("32768"));
    assertThat(ConfigLoader.load(given, Map.of(), null).model().contextLength()).isEqualTo(32768);
    for (String bad : List.of("0", "-5", "4096.5", "3000000000")) {
      assertThatThrownBy(
              () ->
                  ConfigLoader.load(
                      Map.of("mock-workers", List.of("1"), "context-length", List.of(bad)),
                      Map.of(),
                      null))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("--context-length");
    }
  }

  @Test
  void precedence_flagBeatsEnvBeatsFileBeatsDefault() throws IOException {
    Path file =
        write("http-port: 7001\nrouter-mode: random\nhttp-host: 10.0.0.1\nmock-workers: 1\n");
    Map<String, String> env = Map.of("DYN_HTTP_PORT", "7002", "DYN_ROUTER_MODE", "round-robin");
    Map<String, List<String>> flags = Map.of("http-port", List.of("7003"));

    RouterConfig config = ConfigLoader.load(flags, env, file);

    assertThat(config.http().port()).isEqualTo(7003);
    assertThat(config.routerMode()).isEqualTo(RouterMode.ROUND_ROBIN);
    assertThat(config.http().host()).isEqualTo("10.0.0.1");
    assertThat(config.tcp().responseStreamHost()).isEqualTo("10.0.0.1");
    assertThat(config.mockWorkers().count()).isEqualTo(1);
    assertThat(config.tcp().poolSize()).isEqualTo(100);
  }

  @Test
  void invalidValue_namesSettingSourceAndValidValues() {
    assertThatThrownBy(() -> ConfigLoader.load(ONE_MOCK, Map.of("DYN_ROUTER_MODE", "sticky"), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'sticky'")
        .hasMessageContaining("--router-mode")
        .hasMessageContaining("DYN_ROUTER_MODE")
        .hasMessageContaining(
            "one of: kv, approx, round-robin, random, least-loaded, power-of-two, sglang");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("http-port", List.of("70000"), "mock-workers", List.of("1")),
                    Map.of(),
                    null))
        .hasMessageContaining("--http-port")
        .hasMessageContaining("0 to 65535");
    assertThatThrownBy(
            () -> ConfigLoader.load(ONE_MOCK, Map.of("DYN_TCP_REQUEST_TIMEOUT", "soon"), null))
        .hasMessageContaining("--tcp-request-timeout")
        .hasMessageContaining("seconds");
  }

  @Test
  void workers_parsedFromFlagsAndFileInBothForms() throws IOException {
    Path file =
        write(
            "worker:\n  - id=a,address=10.0.0.5:9001\n  - id: b\n    address: '[::1]:9002/7f/generate'\n");
    RouterConfig config = ConfigLoader.load(Map.of(), Map.of(), file);
    assertThat(config.workers())
        .containsExactly(
            new WorkerSpec("a", "10.0.0.5", 9001, "generate"),
            new WorkerSpec("b", "::1", 9002, "7f/generate"));

    RouterConfig fromFlags =
        ConfigLoader.load(
            Map.of(
                "worker",
                List.of(
                    "id=c,address=h:1,kv-blocks=4096,kv-events=tcp://h:5557,"
                        + "kv-replay=tcp://h:5558")),
            Map.of(),
            file);
    assertThat(fromFlags.workers())
        .containsExactly(
            new WorkerSpec(
                "c",
                "h",
                1,
                "generate",
                4096,
                Optional.of(new WorkerSpec.KvEventSource("tcp://h:5557", "tcp://h:5558")),
                1));
  }

  @Test
  void dataParallelWorker_hasRanks_whoseEventPortsAreOffsetByTheRank() {
    WorkerSpec worker =
        ConfigLoader.load(
                Map.of(
                    "worker",
                    List.of(
                        "id=d,address=h:1,dp-size=4,kv-events=tcp://h:5557,kv-replay=tcp://h:6000")),
                Map.of(),
                null)
            .workers()
            .get(0);
    assertThat(worker.dpSize()).isEqualTo(4);
    assertThat(worker.kvEvents().orElseThrow().forRank(0))
        .isEqualTo(new WorkerSpec.KvEventSource("tcp://h:5557", "tcp://h:6000"));
    assertThat(worker.kvEvents().orElseThrow().forRank(3))
        .isEqualTo(new WorkerSpec.KvEventSource("tcp://h:5560", "tcp://h:6003"));
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("worker", List.of("id=d,address=h:1,dp-size=3,kv-events=tcp://h:65534")),
                    Map.of(),
                    null))
        .hasMessageContaining("kv-events port 65534 + dp-size 3 - 1 is above 65535");
  }

  @Test
  void eventsFormatDynamo_isOneSocketForEveryRank_withoutReplay_andNeedsANumericId() {
    WorkerSpec worker =
        ConfigLoader.load(
                Map.of(
                    "worker",
                    List.of(
                        "id=7,address=h:1,dp-size=3,kv-events=tcp://h:65535,events-format=dynamo,"
                            + "kv-metrics=tcp://h:6000")),
                Map.of(),
                null)
            .workers()
            .get(0);
    assertThat(worker.kvEvents())
        .contains(WorkerSpec.KvEventSource.dynamo("tcp://h:65535", "tcp://h:6000"));
    assertThat(
            ConfigLoader.load(
                    Map.of(
                        "worker",
                        List.of("id=7,address=h:1,kv-events=tcp://h:5,events-format=vllm")),
                    Map.of(),
                    null)
                .workers()
                .get(0)
                .kvEvents()
                .orElseThrow()
                .format())
        .isEqualTo(KvEventsFormat.VLLM);
    for (var bad :
        Map.of(
                "id=7,address=h:1,kv-events=tcp://h:5,kv-replay=tcp://h:6,events-format=dynamo",
                "kv-replay is vLLM's replay socket",
                "id=7,address=h:1,events-format=dynamo",
                "events-format needs kv-events",
                "id=7,address=h:1,kv-events=tcp://h:5,events-format=json",
                "events-format 'json' is not one of: vllm, dynamo",
                "id=w7,address=h:1,kv-events=tcp://h:5,events-format=dynamo",
                "Worker id 'w7' cannot name a worker with events-format=dynamo",
                "id=7,address=h:1,kv-events=tcp://h:5,kv-metrics=tcp://h:6",
                "kv-metrics is Dynamo's load publisher: it needs events-format=dynamo",
                "id=7,address=h:1,kv-metrics=tcp://h:6",
                "kv-metrics needs kv-events")
            .entrySet()) {
      assertThatThrownBy(
              () ->
                  ConfigLoader.load(
                      Map.of("worker", List.of(bad.getKey()), "router-mode", List.of("kv")),
                      Map.of(),
                      null))
          .as(bad.getKey())
          .hasMessageContaining(bad.getValue());
    }
  }

  @Test
  void badWorker_isRejectedWithTheExpectedForm() {
    for (String bad :
        List.of(
            "id=a",
            "address=h:1",
            "id=a,address=h",
            "id=a,address=h:1,zone=x",
            "id=a,address=h:1,kv-blocks=0",
            "id=a,address=h:1,kv-blocks=many",
            "id=a,address=h:1,kv-events=h:5557",
            "id=a,address=h:1,kv-events=tcp://h",
            "id=a,address=h:1,kv-replay=tcp://h:5558",
            "id=a,address=h:1,dp-size=0",
            "id=a,address=h:1,dp-size=257")) {
      assertThatThrownBy(() -> ConfigLoader.load(Map.of("worker", List.of(bad)), Map.of(), null))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("--worker")
          .hasMessageContaining("id=ID,address=HOST:PORT");
    }
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("worker", List.of("id=a,address=h:1", "id=a,address=h:2")),
                    Map.of(),
                    null))
        .hasMessageContaining("Duplicate worker id 'a'");
  }

  @Test
  void discovery_isStaticByDefault_andEtcdNeedsNoWorkerList() {
    assertThat(ConfigLoader.load(Map.of("mock-workers", List.of("1")), Map.of(), null).discovery())
        .isEqualTo(RouterDiscovery.STATIC);
    RouterConfig etcd =
        ConfigLoader.load(
            Map.of(),
            Map.of("DYN_DISCOVERY_BACKEND", "etcd", "ETCD_ENDPOINTS", "http://10.0.0.1:2379"),
            null);
    assertThat(etcd.discovery().backend()).isEqualTo(DiscoveryBackend.ETCD);
    assertThat(etcd.discovery().etcd().orElseThrow().endpoints())
        .containsExactly(java.net.URI.create("http://10.0.0.1:2379"));
    assertThat(etcd.discovery().namespace()).as("every namespace's cards").isEmpty();
    assertThat(etcd.discovery().serves("anything")).isTrue();
    assertThat(etcd.workers()).isEmpty();
  }

  @Test
  void discovery_namespaceGiven_limitsTheCardsServed() {
    RouterConfig config =
        ConfigLoader.load(
            Map.of("discovery-backend", List.of("kubernetes"), "namespace", List.of("prod")),
            Map.of("POD_NAMESPACE", "dynamo-system"),
            null);
    assertThat(config.discovery().kube().orElseThrow().namespace()).contains("dynamo-system");
    assertThat(config.discovery().serves("prod")).isTrue();
    assertThat(config.discovery().serves("dynamo")).isFalse();
  }

  @Test
  void podWorkers_areFoundBySelector_withTheRoutersOwnModel() {
    RouterConfig config =
        ConfigLoader.load(
            Map.of(
                "discovery-backend", List.of("kubernetes"),
                "worker-selector", List.of("app=vllm"),
                "kv-events-port", List.of("5557"),
                "kv-replay-port", List.of("5558"),
                "served-model-name", List.of("qwen")),
            Map.of(),
            null);
    PodWorkers pods = config.discovery().pods().orElseThrow();
    assertThat(pods.workerPort()).isEqualTo(8000);
    assertThat(config.discovery().dynamic()).as("the model is the router's own").isFalse();
    assertThat(config.model().servedName()).isEqualTo("qwen");
    WorkerSpec worker = pods.worker("vllm-0", "10.1.2.3");
    assertThat(worker.id()).isEqualTo("vllm-0");
    assertThat(worker.url()).hasToString("http://10.1.2.3:8000");
    assertThat(worker.kvEvents().orElseThrow())
        .isEqualTo(new WorkerSpec.KvEventSource("tcp://10.1.2.3:5557", "tcp://10.1.2.3:5558"));

    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of(
                        "discovery-backend", List.of("kubernetes"),
                        "worker-selector", List.of("app=vllm"),
                        "router-mode", List.of("kv")),
                    Map.of(),
                    null))
        .hasMessageContaining("give --kv-events-port");
    assertThatThrownBy(
            () -> ConfigLoader.load(Map.of("worker-selector", List.of("app=vllm")), Map.of(), null))
        .hasMessageContaining("--worker-selector is for plain engines found as Kubernetes pods");
  }

  @Test
  void discovery_withAWorkerListOrAModelSetting_isAnError() {
    for (String[] flag :
        new String[][] {
          {"worker", "id=a,address=h:1"},
          {"mock-workers", "1"},
          {"model-path", "/models/qwen"},
          {"served-model-name", "qwen"},
          {"kv-cache-block-size", "32"}
        }) {
      assertThatThrownBy(
              () ->
                  ConfigLoader.load(
                      Map.of("discovery-backend", List.of("etcd"), flag[0], List.of(flag[1])),
                      Map.of(),
                      null))
          .as(flag[0])
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("--" + flag[0] + " cannot be given with --discovery-backend etcd");
    }
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("discovery-backend", List.of("zookeeper")), Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--discovery-backend");
  }

  @Test
  void noWorkers_isAnError() {
    assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--mock-workers");
  }

  @Test
  void unknownFileKey_isRejected() throws IOException {
    Path file = write("mock-workers: 1\nhttp_port: 9\n");
    assertThatThrownBy(() -> ConfigLoader.load(Map.of(), Map.of(), file))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("Unknown key 'http_port'");
  }

  @Test
  void servedModelName_defaultsToModelFolderName() throws IOException {
    Path model = Files.createDirectory(dir.resolve("Qwen3-0.6B"));
    RouterConfig config =
        ConfigLoader.load(
            Map.of("mock-workers", List.of("1"), "model-path", List.of(model.toString())),
            Map.of(),
            null);
    assertThat(config.model().servedName()).isEqualTo("Qwen3-0.6B");
  }

  @Test
  void shippedExampleFile_loadsAsIs() {
    RouterConfig config = ConfigLoader.load(ONE_MOCK, Map.of(), ExampleFiles.of("router.yaml"));
    assertThat(config.http().port()).isEqualTo(8000);
  }

  @Test
  void fileThatIsNotAMap_isRejected() throws IOException {
    assertThatThrownBy(() -> ConfigLoader.load(ONE_MOCK, Map.of(), write("- a\n- b\n")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("must be a map");
  }

  @Test
  void timeoutBelowAMillisecond_isRejected() {
    assertThatThrownBy(
            () -> ConfigLoader.load(ONE_MOCK, Map.of("DYN_TCP_REQUEST_TIMEOUT", "0.0001"), null))
        .hasMessageContaining("0.001");
  }

  @Test
  void modelPathAtTheRoot_getsTheDefaultName() {
    RouterConfig config =
        ConfigLoader.load(
            Map.of("mock-workers", List.of("1"), "model-path", List.of("/")), Map.of(), null);
    assertThat(config.model().servedName()).isEqualTo("mock-model");
  }

  private static boolean isTransportSecurity(String line) {
    return java.util.stream.Stream.concat(
            TransportSecuritySettings.ALL.stream(), TransportSecuritySettings.HTTP_WORKERS.stream())
        .anyMatch(s -> line.startsWith(s.name() + ":"));
  }

  /** config/router.yaml documents every setting, and its example values are all valid. */
  @Test
  void exampleFile_documentsEverySettingWithValidValues() throws IOException {
    List<String> lines = Files.readAllLines(ExampleFiles.of("router.yaml"));
    for (Setting<?> setting : Settings.ALL) {
      assertThat(lines).as(setting.name()).anyMatch(l -> l.startsWith("# " + setting.name() + ":"));
    }
    Path model = Files.createDirectory(dir.resolve("model"));
    Path kafkaClient = Files.writeString(dir.resolve("kafka-client.properties"), "");
    Path apiKeys = Files.writeString(dir.resolve("api-keys"), "team-a sk-team-a-0123456789\n");
    Path tlsCert = Files.writeString(dir.resolve("tls.crt"), "");
    Path tlsKey = Files.writeString(dir.resolve("tls.key"), "");
    String uncommented =
        lines.stream()
            .filter(l -> l.matches("^# ([a-z-]+:.*|  .*)$"))
            .map(l -> l.substring(2))
            .map(l -> l.startsWith("model-path:") ? "model-path: " + model : l)
            .map(
                l ->
                    l.startsWith("kafka-client-config:")
                        ? "kafka-client-config: " + kafkaClient
                        : l)
            .map(l -> l.startsWith("api-keys-file:") ? "api-keys-file: " + apiKeys : l)
            .map(l -> l.startsWith("tls-cert-path:") ? "tls-cert-path: " + tlsCert : l)
            .map(l -> l.startsWith("tls-key-path:") ? "tls-key-path: " + tlsKey : l)
            // the busy thresholds need kv mode
            .map(l -> l.startsWith("router-mode:") ? "router-mode: kv" : l)
            // plain engines as pods go without a worker list: checked on their own below
            .filter(l -> !POD_SETTINGS.contains(l.substring(0, Math.max(0, l.indexOf(':')))))
            // index snapshots need the nats or kafka plane: checked on their own below
            .filter(l -> !SNAPSHOT_SETTINGS.contains(l.substring(0, Math.max(0, l.indexOf(':')))))
            .filter(l -> !isTransportSecurity(l))
            .collect(Collectors.joining("\n"));
    RouterConfig config = ConfigLoader.load(Map.of(), Map.of(), write(uncommented));
    String podLines =
        lines.stream()
            .filter(l -> l.matches("^# [a-z-]+:.*$"))
            .map(l -> l.substring(2))
            .filter(l -> POD_SETTINGS.contains(l.substring(0, l.indexOf(':'))))
            .collect(Collectors.joining("\n"));
    PodWorkers pods =
        ConfigLoader.load(
                Map.of(),
                Map.of(),
                write(podLines + "\ndiscovery-backend: kubernetes\nrouter-mode: kv\n"))
            .discovery()
            .pods()
            .orElseThrow();
    assertThat(pods.selector()).isEqualTo("app=vllm");
    String snapshotLines =
        lines.stream()
            .filter(l -> l.matches("^# [a-z-]+:.*$"))
            .map(l -> l.substring(2))
            .filter(l -> SNAPSHOT_SETTINGS.contains(l.substring(0, l.indexOf(':'))))
            .map(l -> l.startsWith("router-index-snapshots:") ? "router-index-snapshots: true" : l)
            .collect(Collectors.joining("\n"));
    IndexSnapshotConfig snapshots =
        ConfigLoader.load(
                Map.of(),
                Map.of(),
                write(
                    snapshotLines
                        + "\nevent-plane: nats\nrouter-mode: kv\nworker:\n  - id=1,address=h:1\n"))
            .indexSnapshots();
    assertThat(snapshots).isEqualTo(new IndexSnapshotConfig(true, 1_000_000, false));
    // the inward TLS rows, their files made readable, with a tls:// NATS server
    Path pem = Files.writeString(dir.resolve("any.pem"), "");
    String securityLines =
        lines.stream()
            .filter(l -> l.matches("^# [a-z-]+:.*$"))
            .map(l -> l.substring(2))
            .filter(ConfigLoaderTest::isTransportSecurity)
            .map(l -> l.contains(": /") ? l.substring(0, l.indexOf(':')) + ": " + pem : l)
            .collect(Collectors.joining("\n"));
    RouterConfig secured =
        ConfigLoader.load(
            Map.of(),
            Map.of(),
            write(
                securityLines
                    + "\nnats-server: tls://nats.internal:4222\nworker:\n  - id=1,address=h:1\n"));
    assertThat(secured.tcp().tls().server()).isTrue();
    assertThat(secured.tcp().tls().mutual()).isTrue();
    assertThat(secured.tcp().tls().client()).isTrue();
    assertThat(secured.tcp().tls().serverName()).isEqualTo("worker.internal");
    assertThat(secured.eventPlane().natsServer().auth())
        .isEqualTo(NatsAuth.userPassword("kvrouter", "secret"));
    assertThat(secured.eventPlane().natsServer().caCertPath()).isEqualTo(pem);
    assertThat(secured.engineTls()).isEqualTo(new EngineTls(pem, pem, pem));
    assertThat(pods.kvReplayPort()).hasValue(5558);
    assertThat(config.workers()).hasSize(3);
    assertThat(config.workers().get(1).kvBlocks()).isEqualTo(16384);
    assertThat(config.workers().get(1).codec()).isEqualTo(RequestPlaneCodec.MSGPACK);
    assertThat(config.workers().get(2).instance()).isEqualTo("7587");
    assertThat(config.workers().get(1).dpSize()).isEqualTo(2);
    assertThat(config.workers().get(1).kvEvents())
        .contains(new WorkerSpec.KvEventSource("tcp://10.0.0.6:5557", "tcp://10.0.0.6:5558"));
    assertThat(config.kv().activePrefillTokensThreshold()).hasValue(32768);
    assertThat(config.tcp().responseStreamAdvertiseHost()).isEqualTo("10.0.0.2");
    assertThat(config.tcp().responseStreams().forWorker("w1")).isEqualTo(ResponseStreamKind.MUX);
    assertThat(config.model().contextLength()).isEqualTo(32768);
    assertThat(config.apiKeys().keys())
        .extracting(ApiKey::key)
        .containsExactly("sk-example-client-key");
    assertThat(config.apiKeys().adminKey()).isEqualTo("sk-example-admin-key");
    assertThat(config.http().tls()).isEqualTo(new TlsFiles(tlsCert, tlsKey));
  }

  private static final java.util.Set<String> SNAPSHOT_SETTINGS =
      java.util.Set.of(
          "router-index-snapshots", "router-snapshot-threshold", "router-reset-states");

  private static final java.util.Set<String> POD_SETTINGS =
      java.util.Set.of("worker-selector", "worker-port", "kv-events-port", "kv-replay-port");

  private Path write(String yaml) throws IOException {
    return Files.writeString(Files.createTempFile(dir, "router", ".yaml"), yaml);
  }

  private static Map<String, List<String>> natsKv(String... workers) {
    return Map.of(
        "router-mode", List.of("kv"), "event-plane", List.of("nats"), "worker", List.of(workers));
  }

  private static Map<String, List<String>> natsKvAnd(Map<String, String> more, String... workers) {
    Map<String, List<String>> flags = new HashMap<>(natsKv(workers));
    more.forEach((flag, value) -> flags.put(flag, List.of(value)));
    return flags;
  }

  @Test
  void natsEventPlane_takesDynamosVariables_andNumericWorkerIds() {
    RouterConfig config =
        ConfigLoader.load(
            natsKvAnd(
                Map.of("nats-event-format", "json"),
                "id=7,address=127.0.0.1:9001",
                "id=18446744073709551615,address=127.0.0.1:9002"),
            Map.of(
                "NATS_SERVER",
                "nats://10.0.0.9:4222",
                "DYN_NAMESPACE",
                "prod",
                "DYN_DURABLE_KV_EVENTS",
                "true"),
            null);
    assertThat(config.eventPlane())
        .isEqualTo(
            new EventPlaneConfig(
                EventPlaneKind.NATS,
                NatsServer.plain("nats://10.0.0.9:4222"),
                "prod",
                "backend",
                "generate",
                NatsEventFormat.JSON,
                true,
                "kvrouter",
                EventPlaneConfig.DEFAULT_MAX_MESSAGE_BYTES,
                KafkaConfig.DEFAULTS));
    assertThat(ConfigLoader.load(ONE_MOCK, Map.of(), null).eventPlane())
        .isEqualTo(EventPlaneConfig.DEFAULTS);
  }

  @Test
  void kafkaEventPlane_takesItsBrokersPrefixAndClientFile_andNumberedWorkersOnly(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws IOException {
    java.nio.file.Path client = dir.resolve("client.properties");
    Files.writeString(client, "security.protocol=SSL\n");
    Map<String, List<String>> flags = new java.util.HashMap<>();
    flags.put("router-mode", List.of("kv"));
    flags.put("event-plane", List.of("kafka"));
    flags.put("kafka-bootstrap-servers", List.of("k1:9092,k2:9093"));
    flags.put("kafka-topic-prefix", List.of("prod.kv"));
    flags.put("kafka-client-config", List.of(client.toString()));
    flags.put("worker", List.of("id=7,address=127.0.0.1:9001"));
    EventPlaneConfig plane = ConfigLoader.load(flags, Map.of(), null).eventPlane();
    assertThat(plane.kind()).isEqualTo(EventPlaneKind.KAFKA);
    assertThat(plane.kafka()).isEqualTo(new KafkaConfig("k1:9092,k2:9093", "prod.kv", client));
    assertThat(
            ConfigLoader.load(
                    Map.of(
                        "router-mode", List.of("kv"),
                        "event-plane", List.of("kafka"),
                        "worker", List.of("id=7,address=127.0.0.1:9001")),
                    Map.of("KAFKA_BOOTSTRAP_SERVERS", "broker:19092"),
                    null)
                .eventPlane()
                .kafka())
        .isEqualTo(new KafkaConfig("broker:19092", "kvrouter", null));

    Map<String, List<String>> named = new java.util.HashMap<>(flags);
    named.put("worker", List.of("id=w1,address=127.0.0.1:9001"));
    assertThatThrownBy(() -> ConfigLoader.load(named, Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("Worker id 'w1' cannot name a worker on --event-plane kafka");
    Map<String, List<String>> mocks = new java.util.HashMap<>(flags);
    mocks.remove("worker");
    mocks.put("mock-workers", List.of("2"));
    assertThatThrownBy(() -> ConfigLoader.load(mocks, Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--mock-workers publish their KV events on ZMQ");
    for (String[] bad :
        new String[][] {
          {"kafka-bootstrap-servers", "k1"},
          {"kafka-bootstrap-servers", "k1:99999"},
          {"namespace", "team:a"},
          {"durable-kv-events", "true"},
          {"kafka-topic-prefix", "a/b"},
          {"kafka-client-config", dir.resolve("missing").toString()}
        }) {
      Map<String, List<String>> wrong = new java.util.HashMap<>(flags);
      wrong.put(bad[0], List.of(bad[1]));
      assertThatThrownBy(() -> ConfigLoader.load(wrong, Map.of(), null))
          .as(bad[0])
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("--" + bad[0]);
    }
  }

  @Test
  void natsEventPlane_speaksDynamo15sEnvelopesByDefault_andRefusesJetStreamWithThem() {
    Map<String, List<String>> flags =
        natsKvAnd(Map.of("endpoint", "serve"), "id=7,address=127.0.0.1:9001");
    EventPlaneConfig plane = ConfigLoader.load(flags, Map.of(), null).eventPlane();
    assertThat(plane.natsFormat()).isEqualTo(NatsEventFormat.ENVELOPE);
    assertThat(plane.endpoint()).isEqualTo("serve");
    assertThatThrownBy(
            () -> ConfigLoader.load(flags, Map.of("DYN_DURABLE_KV_EVENTS", "true"), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("stopped publishing to in v1.5")
        .hasMessageContaining("--nats-event-format json");
  }

  @Test
  void kvEventsMaxMessageBytes_isCarriedToTheEventPlane_andBounded() {
    Map<String, List<String>> flags = new HashMap<>(natsKv("id=7,address=127.0.0.1:9001"));
    flags.put("kv-events-max-message-bytes", List.of("1048576"));
    assertThat(ConfigLoader.load(flags, Map.of(), null).eventPlane().maxMessageBytes())
        .isEqualTo(1 << 20);
    flags.put("kv-events-max-message-bytes", List.of("1023"));
    assertThatThrownBy(() -> ConfigLoader.load(flags, Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kv-events-max-message-bytes");
  }

  @Test
  void natsEventPlane_refusesWhatItCannotFollow() {
    assertThatThrownBy(
            () -> ConfigLoader.load(natsKv("id=w1,address=127.0.0.1:9001"), Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("Worker id 'w1'")
        .hasMessageContaining("decimal integer");
    assertThatThrownBy(
            () -> ConfigLoader.load(natsKv("id=07,address=127.0.0.1:9001"), Map.of(), null))
        .hasMessageContaining("Worker id '07'");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    natsKv("id=7,address=127.0.0.1:9001,kv-events=tcp://127.0.0.1:5557"),
                    Map.of(),
                    null))
        .hasMessageContaining("kv-events=, a ZMQ endpoint");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of(
                        "router-mode",
                        List.of("kv"),
                        "event-plane",
                        List.of("nats"),
                        "mock-workers",
                        List.of("2")),
                    Map.of(),
                    null))
        .hasMessageContaining("--mock-workers publish their KV events on ZMQ");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    natsKv("id=7,address=127.0.0.1:9001"), Map.of("DYN_NAMESPACE", "a.b"), null))
        .hasMessageContaining("DYN_NAMESPACE");
    // approximate mode and other router modes do not need events at all
    assertThat(
            ConfigLoader.load(
                    Map.of(
                        "router-mode",
                        List.of("kv"),
                        "event-plane",
                        List.of("nats"),
                        "kv-events",
                        List.of("false"),
                        "worker",
                        List.of("id=w1,address=h:1")),
                    Map.of(),
                    null)
                .workers())
        .hasSize(1);
  }

  @Test
  void workerCodecAndInstance_comeFromTheSpec() {
    RouterConfig config =
        ConfigLoader.load(
            Map.of(
                "request-plane", List.of("nats"),
                "worker",
                    List.of(
                        "id=a,instance=7587,codec=msgpack",
                        "id=b,instance=ff,endpoint=generate_v2",
                        "id=c,address=h:1/x,instance=1")),
            Map.of(),
            null);

    assertThat(config.requestPlane()).isEqualTo(RequestPlaneKind.NATS);
    WorkerSpec a = config.workers().get(0);
    assertThat(a.codec()).isEqualTo(RequestPlaneCodec.MSGPACK);
    assertThat(a.instance()).isEqualTo("7587");
    assertThat(a.hasAddress()).isFalse();
    assertThat(a.path()).isEqualTo("generate");
    assertThat(config.workers().get(1).codec()).isEqualTo(RequestPlaneCodec.JSON);
    assertThat(config.workers().get(1).path()).isEqualTo("generate_v2");
    assertThat(config.workers().get(2).path()).isEqualTo("x");
  }

  @Test
  void requestPlaneEnv_isDynamos() {
    RouterConfig config =
        ConfigLoader.load(
            Map.of("worker", List.of("id=a,instance=1")),
            Map.of("DYN_REQUEST_PLANE", "nats"),
            null);
    assertThat(config.requestPlane()).isEqualTo(RequestPlaneKind.NATS);
  }

  @Test
  void httpRequestPlane_readsDynamosClientSettings_andReachesWorkerEntriesOverTcp() {
    RouterConfig defaults =
        ConfigLoader.load(
            Map.of("worker", List.of("id=a,address=h:1")),
            Map.of("DYN_REQUEST_PLANE", "http"),
            null);
    assertThat(defaults.requestPlane()).isEqualTo(RequestPlaneKind.HTTP);
    assertThat(defaults.httpRpc()).isEqualTo(HttpRpcClientConfig.DEFAULTS);
    assertThat(defaults.httpRpc().requestTimeout()).isEqualTo(java.time.Duration.ofSeconds(5));

    RouterConfig set =
        ConfigLoader.load(
            Map.of("request-plane", List.of("http"), "mock-workers", List.of("1")),
            Map.of("DYN_HTTP_REQUEST_TIMEOUT", "2.5", "DYN_HTTP2_PRIOR_KNOWLEDGE", "true"),
            null);
    assertThat(set.httpRpc())
        .isEqualTo(new HttpRpcClientConfig(java.time.Duration.ofMillis(2500), true));
    assertThat(
            ConfigLoader.load(
                    Map.of(
                        "mock-workers", List.of("1"), "http-rpc-prior-knowledge", List.of("yes")),
                    Map.of("DYN_HTTP2_PRIOR_KNOWLEDGE", "false"),
                    null)
                .httpRpc()
                .priorKnowledge())
        .isTrue();

    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("request-plane", List.of("http"), "worker", List.of("id=a,instance=1")),
                    Map.of(),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "Worker 'a' has no address=: --request-plane http reaches --worker entries over TCP");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("mock-workers", List.of("1")),
                    Map.of("DYN_HTTP_REQUEST_TIMEOUT", "soon"),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("DYN_HTTP_REQUEST_TIMEOUT");
  }

  @Test
  void badWorkerCodecOrInstance_isRefusedSayingWhy() {
    Map<String, String> bad =
        Map.of(
            "id=a,address=h:1,codec=cbor", "codec 'cbor' is not one of: json, msgpack",
            "id=a,instance=7G", "instance '7G' is not a Dynamo instance id in lowercase hex",
            "id=a,instance=12345678901234567", "(1 to 16 digits)",
            "id=a", "id and address (or instance=, or url=) are required",
            "id=a,address=h:1,endpoint=x", "with address=, give it as /PATH",
            "id=a,instance=1,endpoint=a/b", "endpoint 'a/b' must be one name without '/'");
    bad.forEach(
        (spec, message) ->
            assertThatThrownBy(
                    () -> ConfigLoader.load(Map.of("worker", List.of(spec)), Map.of(), null))
                .as(spec)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(message));
  }

  @Test
  void natsRequestPlane_needsEveryWorkersInstance_andNoMockWorkers() {
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("request-plane", List.of("nats"), "worker", List.of("id=a,address=h:1")),
                    Map.of(),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("Worker 'a' has no instance=");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of(
                        "request-plane", List.of("nats"),
                        "worker", List.of("id=a,address=h:1/7f/generate,instance=1")),
                    Map.of(),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("the endpoint is one name");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("request-plane", List.of("nats"), "mock-workers", List.of("1")),
                    Map.of(),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--mock-workers serve the TCP request plane only");
  }

  @Test
  void tcpRequestPlane_needsEveryWorkersAddress() {
    assertThatThrownBy(
            () -> ConfigLoader.load(Map.of("worker", List.of("id=a,instance=1")), Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("Worker 'a' has no address=");
  }
}
