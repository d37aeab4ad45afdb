package dev.distlock.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * MariaDB 10.6+ (InnoDB): each statement of an attempt is bounded with
 * {@code SET STATEMENT max_statement_time}, which is sub-second and interrupts InnoDB row
 * lock waits (which {@code innodb_lock_wait_timeout}, whole seconds, 50 by default, would
 * not do in time). Time is {@code UTC_TIMESTAMP(6)} in a {@code DATETIME(6)}.
 */
class MariadbDialect extends JdbcDialect {

	MariadbDialect() {
		this("mariadb", "MariaDB");
	}

	MariadbDialect(String platform, String errorCodesName) {
		super(platform, errorCodesName);
	}

	@Override
	String scripts() {
		return "mariadb";
	}

	@Override
	String bounded(String sql, long millis) {
		if (millis <= 0) {
			return sql;
		}
		// a number this class formats, never user data
		return "SET STATEMENT max_statement_time=" + (millis / 1000) + "." + String.format("%03d", millis % 1000)
				+ " FOR " + sql;
	}

	@Override
	Instant databaseTime(ResultSet result) throws SQLException {
		return result.getObject(1, LocalDateTime.class).toInstant(ZoneOffset.UTC);
	}

}
