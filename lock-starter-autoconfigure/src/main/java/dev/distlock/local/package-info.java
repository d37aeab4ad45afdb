/**
 * The in-JVM reference backend ({@code local}): every lock type, fencing and lease expiry
 * in memory. For tests and single-instance applications; it coordinates the threads of
 * one JVM only.
 */
@NullMarked
package dev.distlock.local;

import org.jspecify.annotations.NullMarked;
