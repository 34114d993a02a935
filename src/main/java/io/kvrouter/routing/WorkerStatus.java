package io.kvrouter.routing;

/** What the router knows about one worker right now. */
public record WorkerStatus(String id, String address, boolean healthy, int activeRequests) {}
