/**
 * Auto-configuration of the etcd ({@code etcd}) backend: its provider, properties and
 * customizers, and its latch. Property names are documented in docs/.
 */
@NullMarked
package dev.distlock.etcd.autoconfigure;

import org.jspecify.annotations.NullMarked;
