package io.kvrouter.discovery.etcd;

/** etcd did not answer a call in time, or refused it; the message says which call. */
public final class EtcdUnavailableException extends RuntimeException {
  public EtcdUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
