/**
 * Auto-configuration of the Redisson ({@code redisson}, {@code redisson-quorum}) backend:
 * its provider, properties and customizers, and its latch. Property names are documented
 * in docs/.
 */
@NullMarked
package dev.distlock.redisson.autoconfigure;

import org.jspecify.annotations.NullMarked;
