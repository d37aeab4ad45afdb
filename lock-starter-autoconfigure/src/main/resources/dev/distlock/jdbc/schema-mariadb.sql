-- The lock table of distlock's JDBC backend, MariaDB 10.6+ (InnoDB). MySQL, which has no sequences: schema-mysql.sql.
-- Run as is for the default table name; for another name, replace distlock_lock
-- (also in distlock_lock_fence and distlock_lock_latch).
-- Every statement is idempotent: running the script again, or on a table created before the sequence existed, upgrades it.
--
-- Per lock (lock_key, lock_kind) one head row, slot 0: the exclusive holder of a MUTEX, FAIR or WRITE lock and the
-- token of the last grant (fence). Readers, semaphore permit holders (slot = their token) and FAIR waiters' tickets
-- (slot = place in the queue) are further rows of the same lock. A release expires its row; the provider's sweep
-- deletes released and expired rows in the background (distlock.jdbc.cleanup-interval).
-- lock_key is binary so that keys compare byte by byte (no case folding, no trailing-space padding).
-- lease_until is the database's UTC time (UTC_TIMESTAMP(6), independent of session time zones);
-- 1970-01-01 marks a released row.
CREATE TABLE IF NOT EXISTS distlock_lock (
	lock_key    VARBINARY(768) NOT NULL,
	lock_kind   CHAR(1) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
	slot        BIGINT NOT NULL,
	owner       VARCHAR(100) CHARACTER SET ascii COLLATE ascii_bin,
	hold_mode   CHAR(1) CHARACTER SET ascii COLLATE ascii_bin,
	lease_until DATETIME(6) NOT NULL,
	fence       BIGINT NOT NULL,
	PRIMARY KEY (lock_key, lock_kind, slot)
) ENGINE = InnoDB;

-- Fencing tokens: one sequence per lock table, named after it, so tokens keep rising when rows are deleted.
CREATE SEQUENCE IF NOT EXISTS distlock_lock_fence;
-- Upgrade of a table created without the sequence (tokens counted in the rows): move the sequence above every token handed out. MariaDB's SETVAL
-- never moves a sequence back, so this changes nothing once tokens come from it. EXECUTE IMMEDIATE because SETVAL
-- takes a literal.
SET @distlock_max_fence = (SELECT COALESCE(MAX(fence), 0) FROM distlock_lock);
EXECUTE IMMEDIATE CONCAT('SELECT SETVAL(distlock_lock_fence, ', @distlock_max_fence, ')');

-- Countdown latches (JdbcLatchProvider): one row per latch while its count is above zero; the last count-down and
-- the expiry (expires_at, the database's UTC time) delete it. Named after the lock table with _latch.
CREATE TABLE IF NOT EXISTS distlock_lock_latch (
	latch_name  VARBINARY(768) NOT NULL PRIMARY KEY,
	latch_count BIGINT NOT NULL,
	expires_at  DATETIME(6) NOT NULL
) ENGINE = InnoDB;
