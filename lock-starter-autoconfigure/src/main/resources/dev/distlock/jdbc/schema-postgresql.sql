-- The lock table of distlock's JDBC backend, PostgreSQL.
-- Run as is for the default table name; for another name, replace distlock_lock
-- (also in distlock_lock_fence and distlock_lock_latch).
-- Every statement is idempotent: running the script again, or on a table created before the sequence existed, upgrades it.
--
-- Per lock (lock_key, lock_kind) one head row, slot 0: the exclusive holder of a MUTEX, FAIR or WRITE lock and the
-- token of the last grant (fence). Readers, semaphore permit holders (slot = their token) and FAIR waiters' tickets
-- (slot = place in the queue) are further rows of the same lock. A release expires its row; the provider's sweep
-- deletes released and expired rows in the background (distlock.jdbc.cleanup-interval).
-- lease_until is the database's time; 1970-01-01 marks a released row.
-- waiters / waiters_until (head row only): how many waiters registered for a release notification, and until when
-- (the end of the longest wait among them); a release sends pg_notify only while waiters > 0 and waiters_until is
-- ahead, so an uncontended release notifies nobody.
CREATE TABLE IF NOT EXISTS distlock_lock (
	lock_key    VARCHAR(255) NOT NULL,
	lock_kind   VARCHAR(1)   NOT NULL,
	slot        BIGINT       NOT NULL,
	owner       VARCHAR(100),
	hold_mode   VARCHAR(1),
	lease_until TIMESTAMP WITH TIME ZONE NOT NULL,
	fence       BIGINT       NOT NULL,
	waiters     INTEGER      NOT NULL DEFAULT 0,
	waiters_until TIMESTAMP WITH TIME ZONE,
	PRIMARY KEY (lock_key, lock_kind, slot)
) WITH (fillfactor = 70);

-- Fencing tokens: one sequence per lock table, named after it, so tokens keep rising when rows are deleted.
-- Keep CACHE 1 (the default): a cache per session would hand out tokens out of order.
CREATE SEQUENCE IF NOT EXISTS distlock_lock_fence;
-- Upgrade of a table created without the sequence (tokens counted in the rows): start the sequence above every token handed out. Once tokens come
-- from the sequence no row is ahead of it, so this changes nothing.
SELECT setval('distlock_lock_fence', f.m)
FROM (SELECT MAX(fence) AS m FROM distlock_lock) f, distlock_lock_fence s
WHERE f.m > (CASE WHEN s.is_called THEN s.last_value ELSE s.last_value - 1 END);

-- Upgrade of a table created without the waiter registry: add its columns (no table rewrite since PostgreSQL 11).
ALTER TABLE distlock_lock ADD COLUMN IF NOT EXISTS waiters INTEGER NOT NULL DEFAULT 0;
ALTER TABLE distlock_lock ADD COLUMN IF NOT EXISTS waiters_until TIMESTAMP WITH TIME ZONE;

-- Countdown latches (JdbcLatchProvider): one row per latch while its count is above zero; the last count-down and
-- the expiry (expires_at, the database's time) delete it. Named after the lock table with _latch.
CREATE TABLE IF NOT EXISTS distlock_lock_latch (
	latch_name  VARCHAR(255) NOT NULL PRIMARY KEY,
	latch_count BIGINT       NOT NULL,
	expires_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
