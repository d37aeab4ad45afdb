/**
 * Auto-configuration of the JDBC ({@code jdbc}) backend: its provider, properties and
 * customizers, and its latch. Property names are documented in docs/.
 */
@NullMarked
package dev.distlock.jdbc.autoconfigure;

import org.jspecify.annotations.NullMarked;
