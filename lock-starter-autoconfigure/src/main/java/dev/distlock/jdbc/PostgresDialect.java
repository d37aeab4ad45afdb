package dev.distlock.jdbc;

/**
 * PostgreSQL: an operation's statements go in one round trip and one implicit
 * transaction, and bound their own lock waits
 * ({@code set_config('lock_timeout', ..., true)} in the batch, see
 * {@code operations-postgresql.sql}); releases notify waiters.
 */
final class PostgresDialect extends JdbcDialect {

	PostgresDialect() {
		super("postgresql", "PostgreSQL");
	}

	@Override
	boolean batched() {
		return true;
	}

	@Override
	boolean notifies() {
		return true;
	}

}
