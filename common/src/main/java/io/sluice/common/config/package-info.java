/**
 * The typed configuration registry.
 *
 * <p>Each module declares its keys once, as {@link io.sluice.common.config.ConfigOption} constants
 * of a {@link io.sluice.common.config.ConfigOptionSet} class, and lists that class in its {@code
 * META-INF/services/io.sluice.common.config.ConfigOptionSet}. A daemon reads its file with {@link
 * io.sluice.common.config.ConfigLoader#load}, which checks every value, key and cross-option rule
 * at start-up and reports every problem at once; code reads values with {@link
 * io.sluice.common.config.SluiceConf#get}. No key string or default is written anywhere else.
 *
 * <p>{@code docs/configuration.md} is generated from the sets by {@link
 * io.sluice.common.config.ConfigDocGenerator}; a test in {@code integration-test} fails when the
 * checked-in page is stale.
 */
package io.sluice.common.config;
