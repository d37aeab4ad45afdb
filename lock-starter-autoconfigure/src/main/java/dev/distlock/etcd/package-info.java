/**
 * The etcd backend, on jetcd: {@link dev.distlock.etcd.EtcdLockProvider} keeps every lock
 * as a queue of keys ordered by their creation revision, and
 * {@link dev.distlock.etcd.EtcdLatchProvider} keeps countdown latches as keys with an
 * etcd lease.
 */
@NullMarked
package dev.distlock.etcd;

import org.jspecify.annotations.NullMarked;
