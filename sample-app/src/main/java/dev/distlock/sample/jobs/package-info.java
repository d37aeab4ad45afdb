/**
 * A scheduled job that runs on one instance of the cluster at a time and is skipped
 * elsewhere.
 */
@NullMarked
package dev.distlock.sample.jobs;

import org.jspecify.annotations.NullMarked;
