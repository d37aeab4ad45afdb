/**
 * What the sample's page at {@code /} shows: every lock call of this instance recorded on
 * a bounded timeline, and the demos its buttons run.
 */
@NullMarked
package dev.distlock.sample.page;

import org.jspecify.annotations.NullMarked;
