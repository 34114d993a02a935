package io.kvrouter.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How a NATS client proves who it is ({@code NATS_AUTH_*}), one of Dynamo's four ways, which it
 * tries in this order: user name and password, token, NKey seed, credentials file (a user JWT with
 * its NKey seed, as {@code nsc} writes it). {@link #NONE}: anonymous.
 *
 * <p>{@link #toString()} never shows a secret.
 */
public record NatsAuth(Kind kind, String user, String secret, Path credentialsFile) {

  /** The four ways, and none. */
  public enum Kind {
    NONE,
    USER_PASSWORD,
    TOKEN,
    NKEY,
    CREDENTIALS_FILE
  }

  public static final NatsAuth NONE = new NatsAuth(Kind.NONE, null, null, null);

  public NatsAuth {
    Objects.requireNonNull(kind, "kind");
    switch (kind) {
      case NONE -> require(user == null && secret == null && credentialsFile == null);
      case USER_PASSWORD -> require(user != null && secret != null && credentialsFile == null);
      case TOKEN, NKEY -> require(user == null && secret != null && credentialsFile == null);
      case CREDENTIALS_FILE -> require(user == null && secret == null && credentialsFile != null);
    }
  }

  private static void require(boolean consistent) {
    if (!consistent) {
      throw new IllegalArgumentException("NATS credentials do not match their kind");
    }
  }

  public static NatsAuth userPassword(String user, String password) {
    return new NatsAuth(Kind.USER_PASSWORD, user, password, null);
  }

  public static NatsAuth token(String token) {
    return new NatsAuth(Kind.TOKEN, null, token, null);
  }

  /** An NKey user's seed (it starts {@code SU}). */
  public static NatsAuth nkey(String seed) {
    return new NatsAuth(Kind.NKEY, null, seed, null);
  }

  public static NatsAuth credentialsFile(Path file) {
    return new NatsAuth(Kind.CREDENTIALS_FILE, null, null, file);
  }

  @Override
  public String toString() {
    return switch (kind) {
      case NONE -> "anonymous";
      case USER_PASSWORD -> "user " + user;
      case TOKEN -> "token";
      case NKEY -> "nkey";
      case CREDENTIALS_FILE -> "credentials file " + credentialsFile;
    };
  }
}
