/**
 * What a replay measured, per routing policy, and its two outputs: {@code results.json} and a
 * self-contained {@code report.html} with charts. Shared by {@code router.jar simulate} (virtual
 * time) and {@code router.jar bench} (a live router, measured from the client side).
 */
package io.kvrouter.tools.report;
