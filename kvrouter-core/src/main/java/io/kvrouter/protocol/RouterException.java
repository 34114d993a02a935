package io.kvrouter.protocol;

/**
 * Every failure a request can meet on its way through the router. Expected failures carry no stack
 * trace (they are frequent and their message says everything); only the frontend maps them to HTTP
 * statuses and OpenAI error bodies.
 */
public abstract sealed class RouterException extends RuntimeException
    permits InvalidRequestException,
        AllWorkersBusyException,
        ModelNotFoundException,
        NoWorkerAvailableException,
        WorkerUnavailableException,
        WorkerStreamException,
        RequestCancelledException,
        RateLimitedException,
        RouterShuttingDownException {

  protected RouterException(String message, Throwable cause) {
    super(message, cause, false, false);
  }
}
