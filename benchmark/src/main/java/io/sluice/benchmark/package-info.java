/** Sluice benchmark module. */
package io.sluice.benchmark;
