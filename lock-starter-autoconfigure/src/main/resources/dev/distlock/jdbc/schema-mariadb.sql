-- The lock table of distlock's JDBC backend, MariaDB and MySQL 8 (InnoDB).
-- Run as is for the default table name; for another name, replace distlock_lock.
--
-- Per lock (lock_key, lock_kind) one head row, slot 0, that is never deleted: it keeps the fencing counter (fence)
-- and the exclusive holder of a MUTEX, FAIR or WRITE lock. Readers, semaphore permit holders (slot = their token)
-- and FAIR waiters' tickets (slot = place in the queue) are further rows of the same lock.
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
