/**
 * Deposits guarded by fencing tokens, so that a holder paused past its lease cannot
 * overwrite its successor.
 */
@NullMarked
package dev.distlock.sample.accounts;

import org.jspecify.annotations.NullMarked;
