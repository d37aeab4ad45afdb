-- The statements of distlock's JDBC lock provider on MariaDB 10.6+ and MySQL 8 (InnoDB).
--
-- Format: "-- name: x" starts section x (a "generated-key" flag after the name: the token is the statement's
-- LAST_INSERT_ID); a line "@y" includes section y; statements end with ";" at the end of a line; lines starting with
-- "--" are comments. distlock_lock stands for the configured table name. Everything else is bound: :key, :kind,
-- :owner, :slot, :permits, and :lease / :wait in microseconds.
--
-- Time is UTC_TIMESTAMP(6), the database's clock in UTC whatever the session's time zone. A section of several
-- statements runs in one transaction on one connection; its first statement locks the lock's head row, and rows of a
-- lock are added only under that lock. Subqueries on the updated table go through a derived table with an aggregate,
-- which MySQL materialises (it refuses a direct one, error 1093). The last statement of an acquire section returns
-- (token, wait_ms): the fencing token if granted, else null, and the time left on the shortest blocking lease.
--
-- Every grant draws its token from the table's sequence (distlock_lock_fence) while it holds the lock's head row, so
-- tokens rise per lock even after the sweep deleted its rows. MySQL has no sequences: there NEXTVAL(...) is replaced
-- by the database time in microseconds, and GREATEST(fence + 1, ...) keeps tokens rising within one microsecond (on
-- MariaDB the sequence is always ahead of every fence, so GREATEST picks it).

-- name: lock-head
INSERT INTO distlock_lock (lock_key, lock_kind, slot, lease_until, fence)
VALUES (:key, :kind, 0, TIMESTAMP '1970-01-01 00:00:00', 0)
ON DUPLICATE KEY UPDATE fence = fence;

-- name: drop-expired
DELETE FROM distlock_lock
WHERE lock_key = :key AND lock_kind = :kind AND slot <> 0 AND lease_until <= UTC_TIMESTAMP(6);

-- name: add-holder
INSERT INTO distlock_lock (lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence)
SELECT lock_key, lock_kind, fence, owner, hold_mode, DATE_ADD(UTC_TIMESTAMP(6), INTERVAL :lease MICROSECOND), fence
FROM distlock_lock
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND owner = :owner AND hold_mode IN ('R', 'S');

-- name: result
SELECT
	(SELECT MAX(fence) FROM distlock_lock
		WHERE lock_key = :key AND lock_kind = :kind AND owner = :owner AND hold_mode <> 'T'
			AND lease_until > UTC_TIMESTAMP(6)) AS token,
	(SELECT CEIL(TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), MIN(lease_until)) / 1000) FROM distlock_lock
		WHERE lock_key = :key AND lock_kind = :kind AND hold_mode <> 'T' AND lease_until > UTC_TIMESTAMP(6)) AS wait_ms;

-- name: acquire-mutex generated-key
-- One statement: insert the head row, or take it over if expired or released. Assignments run left to right and
-- see earlier ones, so lease_until is assigned last. LAST_INSERT_ID(x) puts the token into the OK packet (read as
-- the generated key): a new token for a new row or a takeover, 0 (no key) when still held. A takeover draws its
-- token once it holds the row; an insert draws it before the duplicate check, which only a grant, release and sweep
-- of the same key all completing within that instant could overtake.
INSERT INTO distlock_lock (lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence)
VALUES (:key, :kind, 0, :owner, 'X', DATE_ADD(UTC_TIMESTAMP(6), INTERVAL :lease MICROSECOND),
	LAST_INSERT_ID(NEXTVAL(distlock_lock_fence)))
ON DUPLICATE KEY UPDATE
	fence = IF(lease_until <= UTC_TIMESTAMP(6), LAST_INSERT_ID(GREATEST(fence + 1, NEXTVAL(distlock_lock_fence))),
		fence + LAST_INSERT_ID(0)),
	owner = IF(lease_until <= UTC_TIMESTAMP(6), :owner, owner),
	hold_mode = IF(lease_until <= UTC_TIMESTAMP(6), 'X', hold_mode),
	lease_until = IF(lease_until <= UTC_TIMESTAMP(6), DATE_ADD(UTC_TIMESTAMP(6), INTERVAL :lease MICROSECOND),
		lease_until);

-- name: acquire-write
@lock-head
@drop-expired
UPDATE distlock_lock
SET owner = :owner, hold_mode = 'X', fence = GREATEST(fence + 1, NEXTVAL(distlock_lock_fence)),
	lease_until = DATE_ADD(UTC_TIMESTAMP(6), INTERVAL :lease MICROSECOND)
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND lease_until <= UTC_TIMESTAMP(6)
	AND (SELECT n FROM (SELECT COUNT(*) AS n FROM distlock_lock
		WHERE lock_key = :key AND lock_kind = :kind AND slot <> 0
			AND lease_until > TIMESTAMP '1970-01-01 00:00:00') AS readers) = 0;
@result

-- name: acquire-read
@lock-head
@drop-expired
UPDATE distlock_lock
SET owner = :owner, hold_mode = 'R', fence = GREATEST(fence + 1, NEXTVAL(distlock_lock_fence))
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND lease_until <= UTC_TIMESTAMP(6);
@add-holder
@result

-- name: acquire-semaphore
@lock-head
@drop-expired
UPDATE distlock_lock
SET owner = :owner, hold_mode = 'S', fence = GREATEST(fence + 1, NEXTVAL(distlock_lock_fence))
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0
	AND (SELECT n FROM (SELECT COUNT(*) AS n FROM distlock_lock
		WHERE lock_key = :key AND lock_kind = :kind AND slot <> 0
			AND lease_until > TIMESTAMP '1970-01-01 00:00:00') AS holders) < :permits;
@add-holder
@result

-- name: acquire-fair
@lock-head
@drop-expired
UPDATE distlock_lock SET lease_until = DATE_ADD(UTC_TIMESTAMP(6), INTERVAL :wait MICROSECOND)
WHERE lock_key = :key AND lock_kind = :kind AND slot <> 0 AND owner = :owner;
INSERT INTO distlock_lock (lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence)
SELECT :key, :kind, COALESCE(q.last, 0) + 1, :owner, 'T', DATE_ADD(UTC_TIMESTAMP(6), INTERVAL :wait MICROSECOND), 0
FROM (SELECT MAX(slot) AS last,
		SUM(CASE WHEN lease_until > TIMESTAMP '1970-01-01 00:00:00' THEN 1 ELSE 0 END) AS waiting,
		SUM(CASE WHEN owner = :owner THEN 1 ELSE 0 END) AS mine
	FROM distlock_lock WHERE lock_key = :key AND lock_kind = :kind AND slot <> 0) AS q,
	distlock_lock h
WHERE h.lock_key = :key AND h.lock_kind = :kind AND h.slot = 0 AND COALESCE(q.mine, 0) = 0
	AND (h.lease_until > UTC_TIMESTAMP(6) OR COALESCE(q.waiting, 0) > 0);
UPDATE distlock_lock
SET owner = :owner, hold_mode = 'X', fence = GREATEST(fence + 1, NEXTVAL(distlock_lock_fence)),
	lease_until = DATE_ADD(UTC_TIMESTAMP(6), INTERVAL :lease MICROSECOND)
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND lease_until <= UTC_TIMESTAMP(6)
	AND (SELECT n FROM (SELECT COUNT(*) AS n FROM distlock_lock q
		WHERE q.lock_key = :key AND q.lock_kind = :kind AND q.slot <> 0
			AND q.lease_until > TIMESTAMP '1970-01-01 00:00:00' AND q.owner <> :owner
			AND q.slot < (SELECT COALESCE(MIN(m.slot), 9223372036854775807) FROM distlock_lock m
				WHERE m.lock_key = :key AND m.lock_kind = :kind AND m.slot <> 0 AND m.owner = :owner)) AS ahead) = 0;
DELETE FROM distlock_lock
WHERE lock_key = :key AND lock_kind = :kind AND slot <> 0 AND owner = :owner
	AND (SELECT n FROM (SELECT COUNT(*) AS n FROM distlock_lock h
		WHERE h.lock_key = :key AND h.lock_kind = :kind AND h.slot = 0 AND h.owner = :owner
			AND h.lease_until > UTC_TIMESTAMP(6)) AS granted) > 0;
@result

-- name: renew
UPDATE distlock_lock SET lease_until = DATE_ADD(UTC_TIMESTAMP(6), INTERVAL :lease MICROSECOND)
WHERE lock_key = :key AND lock_kind = :kind AND slot = :slot AND owner = :owner AND lease_until > UTC_TIMESTAMP(6);

-- name: release
-- Expire rather than delete: the head row keeps the fence, and InnoDB sees no delete racing inserts of the key.
UPDATE distlock_lock SET lease_until = TIMESTAMP '1970-01-01 00:00:00'
WHERE lock_key = :key AND lock_kind = :kind AND slot = :slot AND owner = :owner;

-- name: release-member
-- A reader or permit holder: the same statement (no notifications here).
@release

-- name: abandon
UPDATE distlock_lock SET lease_until = TIMESTAMP '1970-01-01 00:00:00'
WHERE lock_key = :key AND lock_kind = :kind AND owner = :owner
	AND lease_until > TIMESTAMP '1970-01-01 00:00:00' AND (slot <> 0 OR hold_mode = 'X');

-- name: now
SELECT UTC_TIMESTAMP(6);

-- name: check
SELECT lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence FROM distlock_lock WHERE 1 = 0;
SELECT NEXTVAL(distlock_lock_fence);

-- name: sweep-select
-- Run in READ COMMITTED: rows that do not match are unlocked at once, and no gap is locked. The batch starts after the
-- previous batch's last row in primary-key order (before every row for the first batch; a range on the key), so a
-- run walks the key once instead of scanning from the table's start for every batch.
SELECT lock_key, lock_kind, slot FROM distlock_lock
WHERE (lock_key > :afterKey OR (lock_key = :afterKey AND (lock_kind > :afterKind
		OR (lock_kind = :afterKind AND slot > :afterSlot))))
	AND lease_until <= UTC_TIMESTAMP(6)
ORDER BY lock_key, lock_kind, slot LIMIT :batch
FOR UPDATE SKIP LOCKED;

-- name: sweep-delete
DELETE FROM distlock_lock WHERE lock_key = :key AND lock_kind = :kind AND slot = :slot;
