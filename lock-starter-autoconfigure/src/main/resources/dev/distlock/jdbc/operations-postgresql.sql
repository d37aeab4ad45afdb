-- The statements of distlock's JDBC lock provider on PostgreSQL.
--
-- Format: "-- name: x" starts section x; a line "@y" includes section y; statements end with ";" at the end of a
-- line; lines starting with "--" are comments. distlock_lock stands for the configured table name. Everything else
-- is bound: :key, :kind, :owner, :slot, :permits, :channel, :payload, :lease / :wait / :waitLeft in microseconds,
-- :lockTimeout, the attempt's remaining wait in milliseconds, :statementTimeout, a call's time left in milliseconds
-- (both as text), and :leave, 1 when the attempt's waiter is registered for release notifications (a grant then also
-- leaves the registry), else 0.
--
-- The statements of one section are sent in one round trip and run in one implicit transaction (the extended
-- query protocol commits at the final Sync), so now(), the start of that transaction, is the same in all of them.
-- Each statement sees what committed before it started (READ COMMITTED), so once the head row is locked every row
-- of the lock is seen as it is: rows are added only under that lock.
-- The last statement of an acquire section returns (token, wait_ms): the fencing token if granted, else null, and
-- the time left on the shortest lease that blocks, if known.
-- Every grant draws its token from the table's sequence (distlock_lock_fence) while it holds the lock's head row, so
-- tokens rise per lock even after the sweep deleted its rows. A head row inserted only to be locked has fence 0.
--
-- Release notifications go out only while someone waits: a waiter registers on the lock's head row before it sleeps
-- (waiters + 1, waiters_until pushed to the end of its wait) and leaves when it is granted or gives up (waiters - 1);
-- a release sends pg_notify only while waiters > 0 and waiters_until > now(). Registration and release both lock the
-- head row, so a release either sees the registration or committed before it, and then the waiter's next attempt,
-- which follows its registration, sees the lock free. A waiter that crashed stops counting when waiters_until passes.
-- PostgreSQL serializes the commits of all transactions that sent NOTIFY (one lock per database), so a release that
-- notified nobody would still have queued behind every other one.

-- name: bound
-- Bounds every lock wait of this transaction by the attempt's remaining wait (milliseconds, as text), and plans its
-- statements without sequential scans: each looks up one lock by the primary key. A pooled connection keeps the
-- generic plan it made after five executions until the table is analyzed again; made while the table was a few
-- pages, that plan scanned the whole table on every call once it had grown (100,000 keys: 2.8 ms of server CPU per
-- lock cycle instead of 0.2).
SELECT set_config('lock_timeout', :lockTimeout, true), set_config('enable_seqscan', 'off', true);

-- name: lock-head
INSERT INTO distlock_lock (lock_key, lock_kind, slot, lease_until, fence)
VALUES (:key, :kind, 0, TIMESTAMP WITH TIME ZONE 'epoch', 0)
ON CONFLICT (lock_key, lock_kind, slot) DO NOTHING;
SELECT fence FROM distlock_lock WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 FOR UPDATE;

-- name: drop-expired
-- Expired and released holders and tickets go; a row renewed meanwhile is rechecked after its update and stays.
DELETE FROM distlock_lock
WHERE lock_key = :key AND lock_kind = :kind AND slot <> 0 AND lease_until <= now();

-- name: add-holder
-- A reader or permit holder: its row's slot is the token the head row just handed out.
INSERT INTO distlock_lock (lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence)
SELECT lock_key, lock_kind, fence, owner, hold_mode, now() + :lease * INTERVAL '1 microsecond', fence
FROM distlock_lock
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND owner = :owner AND hold_mode IN ('R', 'S');

-- name: result
SELECT
	(SELECT MAX(fence) FROM distlock_lock
		WHERE lock_key = :key AND lock_kind = :kind AND owner = :owner AND hold_mode <> 'T'
			AND lease_until > now()) AS token,
	(SELECT CEIL(EXTRACT(EPOCH FROM MIN(lease_until) - now()) * 1000) FROM distlock_lock
		WHERE lock_key = :key AND lock_kind = :kind AND hold_mode <> 'T' AND lease_until > now()) AS wait_ms;

-- name: acquire-mutex
-- One statement: take the head row if it is new, expired or released. A takeover draws its token once it holds the
-- row; an insert draws it before the conflict check, which only a grant, release and sweep of the same key all
-- completing within that instant could overtake.
@bound
WITH previous AS (
	SELECT lease_until FROM distlock_lock WHERE lock_key = :key AND lock_kind = :kind AND slot = 0
), granted AS (
	INSERT INTO distlock_lock AS l (lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence)
	VALUES (:key, :kind, 0, :owner, 'X', now() + :lease * INTERVAL '1 microsecond', nextval('distlock_lock_fence'))
	ON CONFLICT (lock_key, lock_kind, slot) DO UPDATE
		SET owner = EXCLUDED.owner, hold_mode = 'X', lease_until = EXCLUDED.lease_until,
			fence = nextval('distlock_lock_fence'), waiters = GREATEST(l.waiters - :leave, 0)
		WHERE l.lease_until <= now()
	RETURNING fence
)
SELECT (SELECT fence FROM granted) AS token,
	(SELECT CEIL(EXTRACT(EPOCH FROM lease_until - now()) * 1000) FROM previous) AS wait_ms;

-- name: acquire-write
@bound
@lock-head
@drop-expired
UPDATE distlock_lock
SET owner = :owner, hold_mode = 'X', lease_until = now() + :lease * INTERVAL '1 microsecond',
	fence = nextval('distlock_lock_fence'), waiters = GREATEST(waiters - :leave, 0)
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND lease_until <= now()
	AND NOT EXISTS (SELECT 1 FROM distlock_lock r
		WHERE r.lock_key = :key AND r.lock_kind = :kind AND r.slot <> 0
			AND r.lease_until > TIMESTAMP WITH TIME ZONE 'epoch');
@result

-- name: acquire-read
@bound
@lock-head
@drop-expired
-- no live writer: count this reader on the head row (the writer's lease there stays expired)
UPDATE distlock_lock SET owner = :owner, hold_mode = 'R', fence = nextval('distlock_lock_fence'),
	waiters = GREATEST(waiters - :leave, 0)
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND lease_until <= now();
@add-holder
@result

-- name: acquire-semaphore
@bound
@lock-head
@drop-expired
UPDATE distlock_lock SET owner = :owner, hold_mode = 'S', fence = nextval('distlock_lock_fence'),
	waiters = GREATEST(waiters - :leave, 0)
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0
	AND (SELECT COUNT(*) FROM distlock_lock h
		WHERE h.lock_key = :key AND h.lock_kind = :kind AND h.slot <> 0
			AND h.lease_until > TIMESTAMP WITH TIME ZONE 'epoch') < :permits;
@add-holder
@result

-- name: acquire-fair
@bound
@lock-head
@drop-expired
-- keep this waiter's place in the queue
UPDATE distlock_lock SET lease_until = now() + :wait * INTERVAL '1 microsecond'
WHERE lock_key = :key AND lock_kind = :kind AND slot <> 0 AND owner = :owner;
-- join the queue at the back when the lock cannot be had now: it is held, or others wait
INSERT INTO distlock_lock (lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence)
SELECT :key, :kind, COALESCE(q.last, 0) + 1, :owner, 'T', now() + :wait * INTERVAL '1 microsecond', 0
FROM (SELECT MAX(slot) AS last,
		SUM(CASE WHEN lease_until > TIMESTAMP WITH TIME ZONE 'epoch' THEN 1 ELSE 0 END) AS waiting,
		SUM(CASE WHEN owner = :owner THEN 1 ELSE 0 END) AS mine
	FROM distlock_lock WHERE lock_key = :key AND lock_kind = :kind AND slot <> 0) q,
	distlock_lock h
WHERE h.lock_key = :key AND h.lock_kind = :kind AND h.slot = 0 AND COALESCE(q.mine, 0) = 0
	AND (h.lease_until > now() OR COALESCE(q.waiting, 0) > 0);
-- grant when free and no live ticket is ahead of this waiter's
UPDATE distlock_lock
SET owner = :owner, hold_mode = 'X', lease_until = now() + :lease * INTERVAL '1 microsecond',
	fence = nextval('distlock_lock_fence'), waiters = GREATEST(waiters - :leave, 0)
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND lease_until <= now()
	AND NOT EXISTS (SELECT 1 FROM distlock_lock q
		WHERE q.lock_key = :key AND q.lock_kind = :kind AND q.slot <> 0
			AND q.lease_until > TIMESTAMP WITH TIME ZONE 'epoch' AND q.owner <> :owner
			AND q.slot < (SELECT COALESCE(MIN(m.slot), 9223372036854775807) FROM distlock_lock m
				WHERE m.lock_key = :key AND m.lock_kind = :kind AND m.slot <> 0 AND m.owner = :owner));
-- granted: leave the queue
DELETE FROM distlock_lock
WHERE lock_key = :key AND lock_kind = :kind AND slot <> 0 AND owner = :owner
	AND EXISTS (SELECT 1 FROM distlock_lock h
		WHERE h.lock_key = :key AND h.lock_kind = :kind AND h.slot = 0 AND h.owner = :owner
			AND h.lease_until > now());
@result

-- name: renew
-- Planned without sequential scans, as the acquires are (see bound), for the same reason.
SELECT set_config('enable_seqscan', 'off', true);
UPDATE distlock_lock SET lease_until = now() + :lease * INTERVAL '1 microsecond'
WHERE lock_key = :key AND lock_kind = :kind AND slot = :slot AND owner = :owner AND lease_until > now();

-- name: renew-many
-- The renewals that fall due together, in one statement: renew's condition for each lock of the batch, whose columns
-- come as four arrays of one length; it returns the place in the arrays (from 1) of each lease renewed. One statement
-- instead of a JDBC batch of one UPDATE per lease: PostgreSQL plans and executes it once, not once per lease.
-- Its plan must not depend on the table's statistics. A table that was emptied (the sweep deleted its released rows)
-- and vacuumed keeps its pages and an estimate of no rows until the next ANALYZE; refilled within that time, a nested
-- loop that rescans the batch once per row of the table looks cheapest: at 100,000 rows one batch of 1,000 took 42 s
-- (a pooled connection's generic plan). So the rows of the table come only from the primary key's index, for the
-- batch's keys (= ANY of the keys, read once from r), and no nested loop joins them to the batch: a hash or merge join
-- of at most a batch's rows on each side, whatever the statistics say (24 ms there; 14 ms with fresh statistics,
-- where the nested loop over the index took 22 ms).
-- It runs for at most the call's time left (:statementTimeout, milliseconds as text): past it the client has given up
-- on the batch, and a statement still running would keep the rows it already updated locked, so the releases of
-- those locks would wait behind it, for as long as a row it waits for stays locked.
SELECT set_config('enable_nestloop', 'off', true), set_config('statement_timeout', :statementTimeout, true);
WITH r AS (
	SELECT * FROM unnest(CAST(:keys AS VARCHAR[]), CAST(:kinds AS VARCHAR[]), CAST(:slots AS BIGINT[]),
		CAST(:owners AS VARCHAR[])) WITH ORDINALITY AS r(lock_key, lock_kind, slot, owner, place)
)
UPDATE distlock_lock AS t SET lease_until = now() + :lease * INTERVAL '1 microsecond'
FROM r
WHERE t.lock_key = ANY(ARRAY(SELECT lock_key FROM r))
	AND t.lock_key = r.lock_key AND t.lock_kind = r.lock_kind AND t.slot = r.slot AND t.owner = r.owner
	AND t.lease_until > now()
RETURNING r.place;

-- name: renew-many-sequenced
-- renew-many for owner tokens that share one prefix, as the tokens of one process do (its prefix, then a sequence
-- number): the prefix comes once and the sequence numbers as a BIGINT array, so a batch sends 8 bytes per owner instead
-- of its whole token, and the driver encodes no owner string. The token is the prefix and the number in decimal.
-- Planned and bounded as renew-many is.
SELECT set_config('enable_nestloop', 'off', true), set_config('statement_timeout', :statementTimeout, true);
WITH r AS (
	SELECT * FROM unnest(CAST(:keys AS VARCHAR[]), CAST(:kinds AS VARCHAR[]), CAST(:slots AS BIGINT[]),
		CAST(:sequences AS BIGINT[])) WITH ORDINALITY AS r(lock_key, lock_kind, slot, sequence, place)
)
UPDATE distlock_lock AS t SET lease_until = now() + :lease * INTERVAL '1 microsecond'
FROM r
WHERE t.lock_key = ANY(ARRAY(SELECT lock_key FROM r))
	AND t.lock_key = r.lock_key AND t.lock_kind = r.lock_kind AND t.slot = r.slot
	AND t.owner = CAST(:ownerPrefix AS VARCHAR) || CAST(r.sequence AS VARCHAR)
	AND t.lease_until > now()
RETURNING r.place;

-- name: release
-- A holder of the head row (MUTEX, FAIR, WRITE). Expire rather than delete: the head row keeps the fence. Registered
-- waiters hear of it when this commits; the UPDATE returns the head row as it is once any registration committed.
-- A release commits without waiting for its WAL flush (synchronous_commit off, for this transaction only): one
-- disk flush per lock cycle instead of two. A release lost in a database crash leaves the lock held until its lease
-- ends, never the reverse: the commit of an acquire that saw the release flushes the release with it.
SELECT set_config('synchronous_commit', 'off', true), set_config('enable_seqscan', 'off', true);
WITH released AS (
	UPDATE distlock_lock SET lease_until = TIMESTAMP WITH TIME ZONE 'epoch'
	WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND owner = :owner
		AND lease_until > TIMESTAMP WITH TIME ZONE 'epoch'
	RETURNING waiters, waiters_until
)
SELECT pg_notify(:channel, :payload) FROM released WHERE waiters > 0 AND waiters_until > now();

-- name: release-member
-- A reader or permit holder (its own row). Locking the head row (FOR SHARE: releases do not exclude each other)
-- orders this release with registrations, as the head row's UPDATE does for the holder of the head row.
SELECT set_config('synchronous_commit', 'off', true), set_config('enable_seqscan', 'off', true);
WITH released AS (
	UPDATE distlock_lock SET lease_until = TIMESTAMP WITH TIME ZONE 'epoch'
	WHERE lock_key = :key AND lock_kind = :kind AND slot = :slot AND slot <> 0 AND owner = :owner
		AND lease_until > TIMESTAMP WITH TIME ZONE 'epoch'
	RETURNING slot
)
SELECT pg_notify(:channel, :payload)
FROM (SELECT waiters, waiters_until FROM distlock_lock
	WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND EXISTS (SELECT 1 FROM released)
	FOR SHARE) h
WHERE h.waiters > 0 AND h.waiters_until > now();

-- name: register-waiter
-- A waiter about to sleep until notified; inserts the head row if the lock has none (yet, or any more).
@bound
INSERT INTO distlock_lock AS l (lock_key, lock_kind, slot, lease_until, fence, waiters, waiters_until)
VALUES (:key, :kind, 0, TIMESTAMP WITH TIME ZONE 'epoch', 0, 1, now() + :waitLeft * INTERVAL '1 microsecond')
ON CONFLICT (lock_key, lock_kind, slot) DO UPDATE
	SET waiters = CASE WHEN l.waiters_until > now() THEN l.waiters + 1 ELSE 1 END,
		waiters_until = GREATEST(l.waiters_until, EXCLUDED.waiters_until);

-- name: leave-waiter
-- A registered waiter that gave up or failed (a granted one left with its grant).
@bound
UPDATE distlock_lock SET waiters = waiters - 1
WHERE lock_key = :key AND lock_kind = :kind AND slot = 0 AND waiters > 0 AND waiters_until > now();

-- name: abandon
-- Everything an attempt may hold or have queued: the head if it took it, a holder row, a ticket. Planned without
-- sequential scans (see bound).
SELECT set_config('enable_seqscan', 'off', true);
WITH abandoned AS (
	UPDATE distlock_lock SET lease_until = TIMESTAMP WITH TIME ZONE 'epoch'
	WHERE lock_key = :key AND lock_kind = :kind AND owner = :owner
		AND lease_until > TIMESTAMP WITH TIME ZONE 'epoch' AND (slot <> 0 OR hold_mode = 'X')
	RETURNING slot
)
SELECT pg_notify(:channel, :payload) FROM (SELECT 1 FROM abandoned LIMIT 1) a
WHERE EXISTS (SELECT 1 FROM distlock_lock h WHERE h.lock_key = :key AND h.lock_kind = :kind AND h.slot = 0
	AND h.waiters > 0 AND h.waiters_until > now());

-- name: now
SELECT now();

-- name: check
-- The table with its columns, and its sequence (see docs/jdbc.md for the upgrade of a table without one).
SELECT lock_key, lock_kind, slot, owner, hold_mode, lease_until, fence, waiters, waiters_until
FROM distlock_lock WHERE 1 = 0;
SELECT last_value FROM distlock_lock_fence WHERE 1 = 0;

-- name: sweep-select
-- A batch of released or expired rows, skipping those another transaction holds: the sweep never waits. The batch
-- starts after the previous batch's last row in primary-key order (:afterKey, :afterKind, :afterSlot; before every
-- row for the first batch), so a run walks the primary key once: from the table's start every batch would scan the
-- held rows again, and deleting many rows beside many held ones would take time in the square of the table's size.
-- The batch's transaction runs without sequential scans (see bound), its deletes included: a plan that scans the table
-- for one batch, or for each row a batch deletes, kept by a pooled connection while the table grows, would make a run
-- take time in the square of the table's size again.
SELECT set_config('enable_seqscan', 'off', true);
SELECT lock_key, lock_kind, slot FROM distlock_lock
WHERE (lock_key, lock_kind, slot) > (CAST(:afterKey AS VARCHAR), CAST(:afterKind AS VARCHAR), CAST(:afterSlot AS BIGINT))
	AND lease_until <= now() AND (waiters = 0 OR waiters_until IS NULL OR waiters_until <= now())
ORDER BY lock_key, lock_kind, slot
LIMIT :batch FOR UPDATE SKIP LOCKED;

-- name: sweep-delete
-- A head row stays while readers or permit holders hold rows of its lock (their releases look for it to find the
-- registered waiters). Checked here, for one lock, rather than in sweep-select: there PostgreSQL hashes the whole
-- table's live rows for the check, once per batch. Runs in sweep-select's transaction, with its planner setting.
DELETE FROM distlock_lock
WHERE lock_key = :key AND lock_kind = :kind AND slot = :slot
	AND (slot <> 0 OR NOT EXISTS (SELECT 1 FROM distlock_lock m
		WHERE m.lock_key = :key AND m.lock_kind = :kind AND m.slot <> 0 AND m.lease_until > now()));
