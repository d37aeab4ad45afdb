package dev.distlock.fencing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.distlock.core.Lease;
import org.jspecify.annotations.Nullable;

/**
 * One fenced SQL update, described by {@link #set(String, Object)} and
 * {@link #where(String, Object)} and run by {@link #execute()}:
 * {@code UPDATE t SET c = ?, ..., token = ? WHERE w = ? AND ... AND (token IS NULL OR
 * token <= ?)}. When no row changes it reads the token of the rows the conditions match:
 * a greater one means a newer holder has written, and {@link StaleFencingTokenException}
 * is thrown; no matching row means there was nothing to update and {@code 0} is returned.
 * Not thread-safe; build one per write.
 *
 * @since 0.1.0
 */
public final class FencedUpdate extends FencedWriter {

	private final JdbcFencing fencing;

	private final String table;

	private final Map<String, @Nullable Object> assignments = new LinkedHashMap<>();

	private final Map<String, Object> conditions = new LinkedHashMap<>();

	private String tokenColumn = JdbcFencing.DEFAULT_TOKEN_COLUMN;

	FencedUpdate(JdbcFencing fencing, String table) {
		super(fencing.listener());
		this.fencing = fencing;
		this.table = table;
	}

	/**
	 * Assigns a column.
	 * @param column the column, a plain identifier
	 * @param value its new value, {@code null} for SQL NULL
	 * @return this update
	 */
	public FencedUpdate set(String column, @Nullable Object value) {
		this.assignments.put(JdbcFencing.identifier("column", column), value);
		return this;
	}

	/**
	 * Adds an equality condition; the conditions together pick the row (usually its
	 * primary key).
	 * @param column the column, a plain identifier
	 * @param value the value it must equal, not {@code null}
	 * @return this update
	 */
	public FencedUpdate where(String column, Object value) {
		if (value == null) {
			throw new IllegalArgumentException("Fenced update of " + this.table + ": condition on '" + column
					+ "' has a null value, which SQL equality never matches");
		}
		this.conditions.put(JdbcFencing.identifier("column", column), value);
		return this;
	}

	/**
	 * Names the column that records the fencing token,
	 * {@value JdbcFencing#DEFAULT_TOKEN_COLUMN} by default.
	 * @param column a nullable {@code BIGINT} column
	 * @return this update
	 */
	public FencedUpdate tokenColumn(String column) {
		this.tokenColumn = JdbcFencing.identifier("token column", column);
		return this;
	}

	/**
	 * Runs the update with the token of the lease current in
	 * {@link dev.distlock.core.LockContext}.
	 * @return the number of rows changed, {@code 0} if no row matches the conditions
	 * @throws StaleFencingTokenException if the row has recorded a greater token
	 * @throws IllegalStateException if no lease is current, or nothing is set, or there
	 * is no condition
	 */
	public int execute() {
		Lease lease = currentLease();
		return execute(lease.fencingToken(), lease.name());
	}

	/**
	 * Runs the update with the token of this lease, for code that holds it away from the
	 * thread that acquired it.
	 * @param lease the lease whose token to write with
	 * @return the number of rows changed, {@code 0} if no row matches the conditions
	 * @throws StaleFencingTokenException if the row has recorded a greater token
	 */
	public int execute(Lease lease) {
		return execute(lease.fencingToken(), lease.name());
	}

	/**
	 * Runs the update with an explicit token.
	 * @param token a fencing token, not negative
	 * @return the number of rows changed, {@code 0} if no row matches the conditions
	 * @throws StaleFencingTokenException if the row has recorded a greater token
	 */
	public int execute(long token) {
		return execute(token, null);
	}

	private int execute(long token, @Nullable String name) {
		checkToken(token);
		if (this.assignments.isEmpty() || this.conditions.isEmpty()) {
			throw new IllegalStateException("Fenced update of " + this.table + " needs at least one set(..) and one "
					+ "where(..) (it never updates a whole table)");
		}
		if (this.assignments.containsKey(this.tokenColumn)) {
			throw new IllegalStateException("Fenced update of " + this.table + " sets the token column '"
					+ this.tokenColumn + "' itself; the update records the token there");
		}
		List<@Nullable Object> params = new ArrayList<>(this.assignments.values());
		params.add(token);
		params.addAll(this.conditions.values());
		params.add(token);
		String sql = "UPDATE " + this.table + " SET " + columns(this.assignments.keySet(), ", ") + ", "
				+ this.tokenColumn + " = ? WHERE " + columns(this.conditions.keySet(), " AND ") + " AND ("
				+ this.tokenColumn + " IS NULL OR " + this.tokenColumn + " <= ?)";
		int updated = this.fencing.jdbcClient().sql(sql).params(params).update();
		if (updated > 0) {
			return updated;
		}
		Long recorded = this.fencing.jdbcClient()
			.sql("SELECT MAX(" + this.tokenColumn + ") FROM " + this.table + " WHERE "
					+ columns(this.conditions.keySet(), " AND "))
			.params(new ArrayList<>(this.conditions.values()))
			.query(Long.class)
			.optional()
			.orElse(null);
		if (recorded != null && recorded > token) {
			throw refused("jdbc", name, "table " + this.table + " where " + this.conditions, token, recorded);
		}
		return 0;
	}

	private static String columns(Iterable<String> names, String separator) {
		StringBuilder sql = new StringBuilder();
		for (String name : names) {
			if (!sql.isEmpty()) {
				sql.append(separator);
			}
			sql.append(name).append(" = ?");
		}
		return sql.toString();
	}

}
