package io.kvrouter.transport.tcp;

import io.kvrouter.config.TcpConfig;
import io.vertx.core.Vertx;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The limits on a call the worker has accepted (acknowledged on TCP, replied to on NATS): it must
 * call back within {@code callHomeTimeout}, and once it has, send its prologue within {@code
 * prologueTimeout}. Dynamo's frontend waits for the prologue without a timer (tcp/server.rs at
 * a073a2d527eb04823c8ebbe492c44caeb7913016; docs/interop.md §12), since the engine may take long to
 * start the request; the router's limit there is the stream inactivity timeout, which a worker that
 * hangs before its prologue would otherwise escape. A {@code tcp_response_mux_v1} stream has no
 * call back ({@link PendingCall#expectNoCallBack()}): only its prologue is timed.
 */
final class CallHomeDeadlines {
  private CallHomeDeadlines() {}

  /** Starts the clock on {@code call}; the timers end when the call settles. */
  static void arm(Vertx vertx, TcpConfig config, PendingCall<?> call) {
    long callHomeMs = config.callHomeTimeout().toMillis();
    long prologueMs = config.prologueTimeout().toMillis();
    AtomicLong timer =
        new AtomicLong(
            vertx.setTimer(
                callHomeMs,
                t ->
                    call.fail(
                        "worker accepted the request but did not open its response stream within "
                            + callHomeMs
                            + " ms",
                        null)));
    call.calledHome()
        .onSuccess(
            v -> {
              if (vertx.cancelTimer(timer.get())) {
                timer.set(
                    vertx.setTimer(
                        prologueMs,
                        t ->
                            call.fail(
                                "worker accepted the request but sent no prologue within "
                                    + prologueMs
                                    + " ms",
                                null)));
              }
            });
    call.future().onComplete(done -> vertx.cancelTimer(timer.get()));
  }
}
