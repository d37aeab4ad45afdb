package dev.distlock.jdbc;

import java.sql.SQLException;
import java.sql.Statement;

/**
 * MySQL 8 (InnoDB): MariaDB's statements, written to the common subset, with two
 * differences. MySQL has no sequences, so a fencing token is the database time in
 * microseconds (or the lock's previous token + 1, which the statements take when higher).
 * It cannot set {@code innodb_lock_wait_timeout} per statement either, so statements get
 * a JDBC query timeout, in whole seconds. Not tested on this project's machines.
 */
final class MysqlDialect extends MariadbDialect {

	/**
	 * What a fencing token is drawn from instead of the sequence: the database time in
	 * microseconds.
	 */
	private static final String TOKEN = "CAST(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP '1970-01-01 00:00:00', "
			+ "UTC_TIMESTAMP(6)) AS SIGNED)";

	MysqlDialect() {
		super("mysql", "MySQL");
	}

	@Override
	String adapt(String statements, String tableName) {
		return statements.replace("NEXTVAL(" + JdbcLockSchema.sequenceName(tableName) + ")", TOKEN);
	}

	@Override
	String bounded(String sql, long millis) {
		return sql;
	}

	@Override
	void bound(Statement statement, long millis) throws SQLException {
		if (millis > 0) {
			statement.setQueryTimeout((int) Math.min(Integer.MAX_VALUE, (millis + 999) / 1000));
		}
	}

}
