/**
 * The ZooKeeper backend, on Apache Curator:
 * {@link dev.distlock.zookeeper.ZooKeeperLockProvider} keeps every lock as a queue of
 * ephemeral sequential nodes, and {@link dev.distlock.zookeeper.LockNodePaths} maps keys
 * to node paths.
 */
@NullMarked
package dev.distlock.zookeeper;

import org.jspecify.annotations.NullMarked;
