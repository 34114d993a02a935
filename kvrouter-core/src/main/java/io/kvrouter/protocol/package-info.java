/**
 * The shared vocabulary of the router: requests and outputs as they travel between frontend and
 * workers, worker endpoints, the stream port, and the failure hierarchy. Free of Vert.x and Netty.
 */
package io.kvrouter.protocol;
