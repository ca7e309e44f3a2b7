/** Sluice client-spark module. */
package io.sluice.client.spark;
