/** Request planes: how a preprocessed request reaches a worker and how its outputs come back. */
package io.kvrouter.transport;
