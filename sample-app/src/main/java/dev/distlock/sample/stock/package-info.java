/**
 * Stock reservation under a MUTEX per SKU.
 */
@NullMarked
package dev.distlock.sample.stock;

import org.jspecify.annotations.NullMarked;
