/**
 * Auto-configuration of the ZooKeeper ({@code zookeeper}) backend: its provider,
 * properties and customizers, and its latch. Property names are documented in docs/.
 */
@NullMarked
package dev.distlock.zookeeper.autoconfigure;

import org.jspecify.annotations.NullMarked;
