/**
 * A batch split into parts that any instance may process, and a step that waits for all
 * of them: distlock's countdown latch.
 */
@NullMarked
package dev.distlock.sample.batch;

import org.jspecify.annotations.NullMarked;
