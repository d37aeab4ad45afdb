-- The sample's business tables. Portable across H2, PostgreSQL and MariaDB, and idempotent, since every instance runs
-- it at startup (spring.sql.init.mode=always). distlock's own lock table is created by distlock
-- (distlock.jdbc.initialize-schema) when the JDBC backend is used.

CREATE TABLE IF NOT EXISTS stock (
	sku         VARCHAR(64)  NOT NULL PRIMARY KEY,
	quantity    INT          NOT NULL
);

CREATE TABLE IF NOT EXISTS stock_reservation (
	sku         VARCHAR(64)  NOT NULL,
	quantity    INT          NOT NULL,
	instance    VARCHAR(200) NOT NULL,
	lock_token  BIGINT       NOT NULL,
	reserved_at TIMESTAMP(3) NOT NULL
);

CREATE TABLE IF NOT EXISTS price (
	sku         VARCHAR(64)  NOT NULL PRIMARY KEY,
	cents       BIGINT       NOT NULL
);

CREATE TABLE IF NOT EXISTS car_park_visit (
	plate       VARCHAR(32)  NOT NULL,
	instance    VARCHAR(200) NOT NULL,
	lock_token  BIGINT       NOT NULL,
	arrived_at  TIMESTAMP(3) NOT NULL,
	left_at     TIMESTAMP(3) NOT NULL
);

-- fencing_token: the highest fencing token that wrote this row (JdbcFencing's column); a write with a lower token
-- is refused, an equal or higher one passes and stores its token
CREATE TABLE IF NOT EXISTS account (
	id            VARCHAR(64)  NOT NULL PRIMARY KEY,
	balance       BIGINT       NOT NULL,
	fencing_token BIGINT
);

CREATE TABLE IF NOT EXISTS job_run (
	job         VARCHAR(64)  NOT NULL,
	instance    VARCHAR(200) NOT NULL,
	lock_token  BIGINT       NOT NULL,
	started_at  TIMESTAMP(3) NOT NULL,
	finished_at TIMESTAMP(3) NOT NULL
);
