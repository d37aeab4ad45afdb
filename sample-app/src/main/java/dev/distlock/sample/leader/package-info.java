/**
 * Work that runs on the elected leader only.
 */
@NullMarked
package dev.distlock.sample.leader;

import org.jspecify.annotations.NullMarked;
