-- The lock table of distlock's JDBC backend, PostgreSQL.
-- Run as is for the default table name; for another name, replace distlock_lock.
--
-- Per lock (lock_key, lock_kind) one head row, slot 0, that is never deleted: it keeps the fencing counter (fence)
-- and the exclusive holder of a MUTEX, FAIR or WRITE lock. Readers, semaphore permit holders (slot = their token)
-- and FAIR waiters' tickets (slot = place in the queue) are further rows of the same lock.
-- lease_until is the database's time; 1970-01-01 marks a released row.
CREATE TABLE IF NOT EXISTS distlock_lock (
	lock_key    VARCHAR(255) NOT NULL,
	lock_kind   VARCHAR(1)   NOT NULL,
	slot        BIGINT       NOT NULL,
	owner       VARCHAR(100),
	hold_mode   VARCHAR(1),
	lease_until TIMESTAMP WITH TIME ZONE NOT NULL,
	fence       BIGINT       NOT NULL,
	PRIMARY KEY (lock_key, lock_kind, slot)
) WITH (fillfactor = 70);
