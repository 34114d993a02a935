package io.kvrouter.app;

import io.kvrouter.config.ModelLocation;
import io.kvrouter.config.NatsServer;
import io.kvrouter.discovery.CardFile;
import io.kvrouter.discovery.ModelCard;
import io.kvrouter.events.nats.NatsOptions;
import io.kvrouter.preprocess.ModelAssets;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.ObjectInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A model card's tokenizer and template files, fetched and checked as Dynamo's frontend does
 * (docs/notes/dynamo-discovery.md §1.5.3): each file the card points at is found by its path's
 * scheme, its size and BLAKE3 compared with the card's, and the files, under the names a model
 * folder gives them, loaded as one {@link ModelAssets}. A card that points at no tokenizer (a
 * {@code router.jar worker} without {@code --model-path}) is served with the demo tokenizer, the
 * one such a worker counts with.
 *
 * <p>Paths: an absolute path or {@code file://} URL is read where it is, and when it is missing
 * here, from the same file name in the card's {@code source_path} (a folder, or a model id in the
 * local Hugging Face cache); {@code hf://ORG/NAME/FILE} is read from the local Hugging Face cache
 * (nothing is downloaded); {@code http(s)://} is downloaded (at most 1 GiB); {@code
 * nats://HOST:PORT/BUCKET/OBJECT} is read from that NATS server's JetStream object store (Dynamo's
 * workers put their files there before discovery moved to {@code v1/}: bucket = the card's slug).
 */
final class CardFiles {
  /** The largest file taken, as Dynamo caps it. */
  static final long MAX_FILE_BYTES = 1L << 30;

  /** The name a model folder gives each kind of file. */
  private static final Map<String, String> FILE_NAMES =
      Map.of(
          "hf_config_json", ModelAssets.MODEL_CONFIG_FILE,
          "hf_tokenizer_json", ModelAssets.TOKENIZER_FILE,
          "hf_tokenizer_config_json", ModelAssets.TOKENIZER_CONFIG_FILE,
          "hf_chat_template", ModelAssets.CHAT_TEMPLATE_FILE,
          "hf_chat_template_jinja", ModelAssets.CHAT_TEMPLATE_FILE,
          "hf_generation_config_json", ModelAssets.GENERATION_CONFIG_FILE);

  private final Map<String, String> env;
  private final NatsServer nats;
  private HttpClient http; // made on the first download

  /**
   * @param env the variables that name the Hugging Face cache ({@code HF_HUB_CACHE}, ...)
   * @param nats the configured NATS server, whose credentials and TLS settings a card's {@code
   *     nats://} file is fetched with (the card names the host)
   */
  CardFiles(Map<String, String> env, NatsServer nats) {
    this.env = env;
    this.nats = nats;
  }

  private synchronized HttpClient http() {
    if (http == null) {
      http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    }
    return http;
  }

  /**
   * The card's model files, loaded. Blocks on file reads and downloads: not for an event loop.
   *
   * @throws IOException naming the file and what is wrong: missing, unsupported, or not the file
   *     the card describes
   */
  ModelAssets load(ModelCard card) throws IOException {
    if (!card.files().containsKey("tokenizer")) {
      return ModelAssets.demo();
    }
    Path folder = Files.createTempDirectory("kvrouter-card-");
    try {
      for (Map.Entry<String, CardFile> entry : card.files().entrySet()) {
        CardFile file = entry.getValue();
        String name = FILE_NAMES.get(file.kind());
        if (name == null) {
          throw new IOException(
              entry.getKey() + " is a " + file.kind() + " file, which kvrouter does not read");
        }
        fetch(card, file, folder.resolve(name));
      }
      return ModelAssets.load(folder);
    } finally {
      deleteTree(folder);
    }
  }

  /** Copies {@code file} to {@code target} and checks it is the one the card describes. */
  private void fetch(ModelCard card, CardFile file, Path target) throws IOException {
    String path = file.path();
    if (path.startsWith("http://") || path.startsWith("https://")) {
      download(URI.create(path), target);
    } else if (path.startsWith("nats://")) {
      fromObjectStore(nats, URI.create(path), target);
    } else {
      Files.copy(localSource(card, path), target, StandardCopyOption.REPLACE_EXISTING);
    }
    CardFile got = CardFile.of(file.kind(), target);
    if (file.size().isPresent() && file.size().getAsLong() != got.size().getAsLong()) {
      throw new IOException(
          path
              + " is "
              + got.size().getAsLong()
              + " bytes, but the model card says "
              + file.size().getAsLong());
    }
    if (!file.checksum().equalsIgnoreCase(got.checksum())) {
      throw new IOException(
          path
              + " has checksum "
              + got.checksum()
              + ", but the model card says "
              + file.checksum());
    }
  }

  /** Where a local, {@code file://} or {@code hf://} path is read on this machine. */
  private Path localSource(ModelCard card, String path) throws IOException {
    if (path.startsWith("hf://")) {
      String rest = path.substring("hf://".length());
      int slash = rest.lastIndexOf('/');
      if (slash <= 0) {
        throw new IOException(path + " names no file of a Hugging Face model");
      }
      return inModel(rest.substring(0, slash), rest.substring(slash + 1), path);
    }
    Path local = path.startsWith("file:") ? Path.of(URI.create(path)) : Path.of(path);
    if (Files.isRegularFile(local)) {
      return local;
    }
    if (card.sourcePath().isEmpty() || local.getFileName() == null) {
      throw new NoSuchFileException(path, null, "not on this machine, and the card has no source");
    }
    // the worker's machine had it; the same model may be here under its source path
    return inModel(card.sourcePath().get(), local.getFileName().toString(), path);
  }

  /** File {@code name} of model {@code model} (a folder or a cached model id). */
  private Path inModel(String model, String name, String path) throws IOException {
    Path folder;
    try {
      folder = ModelLocation.resolve(model, env).folder();
    } catch (IllegalArgumentException e) {
      throw new IOException(path + ": " + e.getMessage());
    }
    Path file = folder.resolve(name);
    if (!Files.isRegularFile(file)) {
      throw new NoSuchFileException(path, null, "not in " + folder);
    }
    return file;
  }

  /**
   * Object {@code OBJECT} of bucket {@code BUCKET} in the object store of the server named, reached
   * with the credentials and TLS of {@code configured} when it is that server (over TLS when its
   * URLs are {@code tls://}), anonymously in plain text otherwise.
   */
  private static void fromObjectStore(NatsServer configured, URI uri, Path target)
      throws IOException {
    String[] parts = uri.getPath() == null ? new String[0] : uri.getPath().split("/");
    if (uri.getHost() == null || parts.length != 3 || parts[1].isEmpty() || parts[2].isEmpty()) {
      throw new IOException(uri + " is not nats://HOST:PORT/BUCKET/OBJECT");
    }
    String hostAndPort = uri.getHost() + ":" + (uri.getPort() < 0 ? 4222 : uri.getPort());
    // the configured credentials and TLS go only to the configured server: a card naming another
    // host (whoever wrote it) gets an anonymous plain connection, as before NATS had credentials
    NatsServer server =
        configured.urls().stream().map(CardFiles::hostAndPort).anyMatch(hostAndPort::equals)
            ? configured.withUrl((configured.tls() ? "tls://" : "nats://") + hostAndPort)
            : NatsServer.plain("nats://" + hostAndPort);
    Options options =
        NatsOptions.builder(server)
            .connectionTimeout(Duration.ofSeconds(10))
            .maxReconnects(0)
            .build();
    try (Connection nats = Nats.connect(options);
        OutputStream out = Files.newOutputStream(target)) {
      ObjectInfo info = nats.objectStore(parts[1]).get(parts[2], out);
      if (info.getSize() > MAX_FILE_BYTES) {
        throw new IOException(uri + " is larger than " + MAX_FILE_BYTES + " bytes");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(uri + ": interrupted");
    } catch (JetStreamApiException | IOException | RuntimeException e) {
      throw new IOException(uri + ": " + e.getMessage(), e);
    } catch (Exception e) {
      throw new IOException(uri + ": " + e, e);
    }
  }

  /** {@code HOST:PORT} of a NATS URL, 4222 when it names no port; empty when it is no URL. */
  private static String hostAndPort(String url) {
    try {
      URI uri = URI.create(url);
      return uri.getHost() == null
          ? ""
          : uri.getHost() + ":" + (uri.getPort() < 0 ? 4222 : uri.getPort());
    } catch (IllegalArgumentException e) {
      return "";
    }
  }

  private void download(URI uri, Path target) throws IOException {
    HttpResponse<InputStream> response;
    try {
      response =
          http()
              .send(
                  HttpRequest.newBuilder(uri).timeout(Duration.ofMinutes(5)).GET().build(),
                  HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(uri + ": interrupted");
    }
    try (InputStream in = response.body()) {
      if (response.statusCode() != 200) {
        throw new IOException(uri + " answered HTTP " + response.statusCode());
      }
      long copied = Files.copy(limited(in, uri), target, StandardCopyOption.REPLACE_EXISTING);
      if (copied > MAX_FILE_BYTES) {
        throw new IOException(uri + " is larger than " + MAX_FILE_BYTES + " bytes");
      }
    }
  }

  /** {@code in}, failing once it gives more than {@link #MAX_FILE_BYTES}. */
  private static InputStream limited(InputStream in, URI uri) {
    return new InputStream() {
      private long read;

      @Override
      public int read() throws IOException {
        int b = in.read();
        if (b >= 0) {
          count(1);
        }
        return b;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = in.read(buffer, offset, length);
        if (n > 0) {
          count(n);
        }
        return n;
      }

      private void count(int n) throws IOException {
        read += n;
        if (read > MAX_FILE_BYTES) {
          throw new IOException(uri + " is larger than " + MAX_FILE_BYTES + " bytes");
        }
      }
    };
  }

  private static void deleteTree(Path folder) {
    try (Stream<Path> paths = Files.walk(folder)) {
      paths.sorted(Comparator.reverseOrder()).forEach(CardFiles::deleteQuietly);
    } catch (IOException | UncheckedIOException e) {
      // a temporary folder left behind is harmless
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // a temporary file left behind is harmless
    }
  }
}
