-- The statements of distlock's JDBC lock provider on H2 2.x.
--
-- Format: "-- name: x" starts section x; a line "@y" includes section y; statements end with ";" at the end of a
-- line; lines starting with "--" are comments. distlock_lock stands for the configured table name. Everything else
-- is bound: :key, :kind, :owner, :slot, :permits, and :lease / :wait in microseconds.
--
-- A section of several statements runs in one transaction; CURRENT_TIMESTAMP is the database's time. Its first
-- statements lock the lock's head row, and rows of a lock are added only under that lock. The last statement of an
-- acquire section returns (token, wait_ms): the fencing token if granted, else null, and the time left on the
-- shortest blocking lease. Every grant draws its token from the table's sequence (distlock_lock_fence) while it
-- holds the lock's head row, so tokens rise per lock even after the sweep deleted its rows.

-- name: lock-head
MERGE INTO distlock_lock AS l
USING (VALUES (CAST(:key AS VARCHAR(255)), CAST(:kind AS VARCHAR(1)))) AS s (k, c)
ON l.lock_key = s.k AND l.lock_kind = s.c AND l.slot = 0
WHEN NOT MATCHED THEN INSERT (lock_key, lock_kind, slot, lease_until, fence)
	VALUES (s.k, s.c, 0, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', 0);
SELECT fence FROM distlock_lock WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 FOR UPDATE;

-- name: drop-expired
DELETE FROM distlock_lock
WHERE lock_key = :key AND lock_kind = :kind AND slot <> 0 AND lease_until <= CURRENT_TIMESTAMP;

-- name: add-holder
INSERT INTO distlock_lock (lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence)
SELECT lock_key, lock_kind, fence, owner, hold_mode,
	DATEADD(MICROSECOND, CAST(:lease AS BIGINT), CURRENT_TIMESTAMP), fence
FROM distlock_lock
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND owner = :owner AND hold_mode IN ('R', 'S');

-- name: result
SELECT
	(SELECT MAX(fence) FROM distlock_lock
		WHERE lock_key = :key AND lock_kind = :kind AND owner = :owner AND hold_mode <> 'T'
			AND lease_until > CURRENT_TIMESTAMP) AS token,
	(SELECT CEIL(DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP, MIN(lease_until)) / 1000.0) FROM distlock_lock
		WHERE lock_key = :key AND lock_kind = :kind AND hold_mode <> 'T'
			AND lease_until > CURRENT_TIMESTAMP) AS wait_ms;

-- name: acquire-mutex
@lock-head
UPDATE distlock_lock
SET owner = :owner, hold_mode = 'X', lease_until = DATEADD(MICROSECOND, CAST(:lease AS BIGINT), CURRENT_TIMESTAMP),
	fence = NEXT VALUE FOR distlock_lock_fence
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND lease_until <= CURRENT_TIMESTAMP;
@result

-- name: acquire-write
@lock-head
@drop-expired
UPDATE distlock_lock
SET owner = :owner, hold_mode = 'X', lease_until = DATEADD(MICROSECOND, CAST(:lease AS BIGINT), CURRENT_TIMESTAMP),
	fence = NEXT VALUE FOR distlock_lock_fence
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND lease_until <= CURRENT_TIMESTAMP
	AND NOT EXISTS (SELECT 1 FROM distlock_lock r
		WHERE r.lock_key = :key AND r.lock_kind = :kind AND r.slot <> 0
			AND r.lease_until > TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00');
@result

-- name: acquire-read
@lock-head
@drop-expired
UPDATE distlock_lock SET owner = :owner, hold_mode = 'R', fence = NEXT VALUE FOR distlock_lock_fence
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND lease_until <= CURRENT_TIMESTAMP;
@add-holder
@result

-- name: acquire-semaphore
@lock-head
@drop-expired
UPDATE distlock_lock SET owner = :owner, hold_mode = 'S', fence = NEXT VALUE FOR distlock_lock_fence
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0
	AND (SELECT COUNT(*) FROM distlock_lock h
		WHERE h.lock_key = :key AND h.lock_kind = :kind AND h.slot <> 0
			AND h.lease_until > TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00') < :permits;
@add-holder
@result

-- name: acquire-fair
@lock-head
@drop-expired
UPDATE distlock_lock SET lease_until = DATEADD(MICROSECOND, CAST(:wait AS BIGINT), CURRENT_TIMESTAMP)
WHERE lock_key = :key AND lock_kind = :kind AND slot <> 0 AND owner = :owner;
INSERT INTO distlock_lock (lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence)
SELECT CAST(:key AS VARCHAR(255)), CAST(:kind AS VARCHAR(1)), COALESCE(q.last, 0) + 1, CAST(:owner AS VARCHAR(100)),
	'T', DATEADD(MICROSECOND, CAST(:wait AS BIGINT), CURRENT_TIMESTAMP), 0
FROM (SELECT MAX(slot) AS last,
		SUM(CASE WHEN lease_until > TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00' THEN 1 ELSE 0 END) AS waiting,
		SUM(CASE WHEN owner = :owner THEN 1 ELSE 0 END) AS mine
	FROM distlock_lock WHERE lock_key = :key AND lock_kind = :kind AND slot <> 0) q,
	distlock_lock h
WHERE h.lock_key = :key AND h.lock_kind = :kind AND h.slot = 0 AND COALESCE(q.mine, 0) = 0
	AND (h.lease_until > CURRENT_TIMESTAMP OR COALESCE(q.waiting, 0) > 0);
UPDATE distlock_lock
SET owner = :owner, hold_mode = 'X', lease_until = DATEADD(MICROSECOND, CAST(:lease AS BIGINT), CURRENT_TIMESTAMP),
	fence = NEXT VALUE FOR distlock_lock_fence
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND lease_until <= CURRENT_TIMESTAMP
	AND NOT EXISTS (SELECT 1 FROM distlock_lock q
		WHERE q.lock_key = :key AND q.lock_kind = :kind AND q.slot <> 0
			AND q.lease_until > TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00' AND q.owner <> :owner
			AND q.slot < (SELECT COALESCE(MIN(m.slot), 9223372036854775807) FROM distlock_lock m
				WHERE m.lock_key = :key AND m.lock_kind = :kind AND m.slot <> 0 AND m.owner = :owner));
DELETE FROM distlock_lock
WHERE lock_key = :key AND lock_kind = :kind AND slot <> 0 AND owner = :owner
	AND EXISTS (SELECT 1 FROM distlock_lock h
		WHERE h.lock_key = :key AND h.lock_kind = :kind AND h.slot = 0 AND h.owner = :owner
			AND h.lease_until > CURRENT_TIMESTAMP);
@result

-- name: renew
UPDATE distlock_lock SET lease_until = DATEADD(MICROSECOND, CAST(:lease AS BIGINT), CURRENT_TIMESTAMP)
WHERE lock_key = :key AND lock_kind = :kind AND slot = :slot AND owner = :owner
	AND lease_until > CURRENT_TIMESTAMP;

-- name: release
UPDATE distlock_lock SET lease_until = TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00'
WHERE lock_key = :key AND lock_kind = :kind AND slot = :slot AND owner = :owner;

-- name: release-member
-- A reader or permit holder: the same statement (no notifications here).
@release

-- name: abandon
UPDATE distlock_lock SET lease_until = TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00'
WHERE lock_key = :key AND lock_kind = :kind AND owner = :owner
	AND lease_until > TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00' AND (slot <> 0 OR hold_mode = 'X');

-- name: now
SELECT CURRENT_TIMESTAMP;

-- name: check
SELECT lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence FROM distlock_lock WHERE 1 = 0;
SELECT NEXT VALUE FOR distlock_lock_fence;

-- name: sweep-select
-- The batch starts after the previous batch's last row in primary-key order (before every row for the first batch),
-- so a run walks the key once instead of scanning from the table's start for every batch.
SELECT lock_key, lock_kind, slot FROM distlock_lock
WHERE (lock_key > :afterKey OR (lock_key = :afterKey AND (lock_kind > :afterKind
		OR (lock_kind = :afterKind AND slot > :afterSlot))))
	AND lease_until <= CURRENT_TIMESTAMP
ORDER BY lock_key, lock_kind, slot LIMIT :batch
FOR UPDATE SKIP LOCKED;

-- name: sweep-delete
DELETE FROM distlock_lock WHERE lock_key = :key AND lock_kind = :kind AND slot = :slot;
