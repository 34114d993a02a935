/** Simulated inference workers: engines that stand in for GPU workers in demos and tests. */
package io.kvrouter.worker;
