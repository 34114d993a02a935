package io.kvrouter;

import io.kvrouter.app.Cli;

/** Entry point of {@code router.jar}. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    Cli.run(args, System.getenv()).ifPresent(System::exit);
  }
}
