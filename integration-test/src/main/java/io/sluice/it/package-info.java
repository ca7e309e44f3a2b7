/** Sluice integration-test module. */
package io.sluice.it;
