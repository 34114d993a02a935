package io.kvrouter.preprocess;

import io.kvrouter.protocol.FinishReason;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A generation that settles its token booking ({@link AdmissionGate.Booking}) when it ends: with
 * its prompt and every completion token it delivered, whether it finished, failed or was cancelled.
 */
final class SettlingGeneration implements Generation {
  private final Generation delegate;
  private final AdmissionGate.Booking booking;
  private final AtomicBoolean settled = new AtomicBoolean();

  SettlingGeneration(Generation delegate, AdmissionGate.Booking booking) {
    this.delegate = delegate;
    this.booking = booking;
  }

  @Override
  public int promptTokens() {
    return delegate.promptTokens();
  }

  @Override
  public String echo() {
    return delegate.echo();
  }

  @Override
  public void subscribe(Listener listener) {
    delegate.subscribe(
        new Listener() {
          private long completionTokens;

          @Override
          public void onDelta(Delta delta, int newTokens) {
            completionTokens += newTokens;
            listener.onDelta(delta, newTokens);
          }

          @Override
          public void onFinish(FinishReason reason, int completionTokens) {
            settle(completionTokens);
            listener.onFinish(reason, completionTokens);
          }

          @Override
          public void onError(Throwable error) {
            settle(completionTokens);
            listener.onError(error);
          }
        });
  }

  private void settle(long completionTokens) {
    if (settled.compareAndSet(false, true)) {
      booking.settle(delegate.promptTokens() + completionTokens);
    }
  }

  @Override
  public void pause() {
    delegate.pause();
  }

  @Override
  public void resume() {
    delegate.resume();
  }

  @Override
  public void cancel() {
    delegate.cancel();
  }
}
