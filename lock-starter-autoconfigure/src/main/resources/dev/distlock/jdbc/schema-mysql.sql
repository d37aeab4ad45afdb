-- The lock table of distlock's JDBC backend, MySQL 8 (InnoDB).
-- Run as is for the default table name; for another name, replace distlock_lock (also in distlock_lock_latch).
--
-- As schema-mariadb.sql, without its sequence: MySQL has none, so a fencing token is the database time in
-- microseconds, or the lock's previous token + 1 if that is higher. Tokens then rise per lock as long as the
-- database clock does not step back by more than the time since the lock's row was deleted.
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

-- Countdown latches (JdbcLatchProvider): one row per latch while its count is above zero; the last count-down and
-- the expiry (expires_at, the database's UTC time) delete it. Named after the lock table with _latch.
CREATE TABLE IF NOT EXISTS distlock_lock_latch (
	latch_name  VARBINARY(768) NOT NULL PRIMARY KEY,
	latch_count BIGINT NOT NULL,
	expires_at  DATETIME(6) NOT NULL
) ENGINE = InnoDB;
