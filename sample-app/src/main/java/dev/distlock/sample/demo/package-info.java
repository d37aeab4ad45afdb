/**
 * The contention demo: many threads hammer one key and count what the lock protects.
 */
@NullMarked
package dev.distlock.sample.demo;

import org.jspecify.annotations.NullMarked;
