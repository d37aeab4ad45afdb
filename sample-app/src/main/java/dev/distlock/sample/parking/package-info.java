/**
 * A car park of three spaces: a SEMAPHORE with three permits.
 */
@NullMarked
package dev.distlock.sample.parking;

import org.jspecify.annotations.NullMarked;
