/**
 * LockTemplate used directly: hold a lock briefly and report who held it, with the
 * fencing token.
 */
@NullMarked
package dev.distlock.sample.holds;

import org.jspecify.annotations.NullMarked;
