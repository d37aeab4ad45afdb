/**
 * A price catalogue read under READ locks and repriced under the WRITE lock.
 */
@NullMarked
package dev.distlock.sample.prices;

import org.jspecify.annotations.NullMarked;
