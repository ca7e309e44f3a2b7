/** Sluice server module. */
package io.sluice.server;
