/**
 * Leader election on any lock backend: one {@link dev.distlock.leader.LeaderCandidate}
 * per application instance holds a lease on the group's lock while it leads, says so with
 * Spring application events, and is revoked the moment that lease is lost or cannot be
 * renewed; {@link dev.distlock.leader.LeaderOnly @LeaderOnly} methods run on the leader
 * only.
 */
@NullMarked
package dev.distlock.leader;

import org.jspecify.annotations.NullMarked;
