package dev.distlock.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;

import org.jspecify.annotations.Nullable;

/**
 * The outcome of an operation: the last update count, and the last row of the last result
 * set as (token, wait in ms).
 *
 * @param updateCount the last update count
 * @param token the fencing token if granted
 * @param waitMillis the time left on the shortest blocking lease, if known
 */
record OperationResult(int updateCount, @Nullable Long token, @Nullable Long waitMillis) {

	static final OperationResult NONE = new OperationResult(0, null, null);

	static OperationResult of(ResultSet rows, int updateCount) throws SQLException {
		if (!rows.next()) {
			return new OperationResult(updateCount, null, null);
		}
		int columns = rows.getMetaData().getColumnCount();
		Long token = longOrNull(rows, 1);
		Long wait = (columns > 1) ? longOrNull(rows, 2) : null;
		return new OperationResult(updateCount, token, wait);
	}

	private static @Nullable Long longOrNull(ResultSet rows, int column) throws SQLException {
		Object value = rows.getObject(column);
		return (value instanceof Number number) ? number.longValue() : null;
	}

}
