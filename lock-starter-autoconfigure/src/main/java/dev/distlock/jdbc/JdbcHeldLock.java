package dev.distlock.jdbc;

import dev.distlock.core.spi.HeldLock;

/**
 * A lock the JDBC backend granted: its rows and the owner token that may renew or release
 * them.
 *
 * @param key the full key
 * @param target the lock's rows
 * @param slot the holder's row: its token for READ and SEMAPHORE, else 0 (the head row)
 * @param owner the owner token
 * @param fencingToken the token of the grant
 */
public record JdbcHeldLock(String key, LockTarget target, long slot, String owner,
		long fencingToken) implements HeldLock {

	@Override
	public String toString() {
		return "JdbcHeldLock[" + this.key + ", kind " + this.target.kind() + ", slot " + this.slot + ", token "
				+ this.fencingToken + "]";
	}

}
