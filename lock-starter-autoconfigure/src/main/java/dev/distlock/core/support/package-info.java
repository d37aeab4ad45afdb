/**
 * Helpers a backend may use, beside the contracts it implements in
 * {@link dev.distlock.core.spi} (as Spring's {@code cache.support} sits beside
 * {@code cache}): {@link dev.distlock.core.support.SharedTimer}, distlock's one timer
 * thread, and {@link dev.distlock.core.support.WakeUpSignal}, one waiter's wake-up flag.
 * Nothing here depends on the SPI or the engine.
 */
@NullMarked
package dev.distlock.core.support;

import org.jspecify.annotations.NullMarked;
