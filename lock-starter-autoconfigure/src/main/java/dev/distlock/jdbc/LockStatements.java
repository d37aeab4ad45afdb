package dev.distlock.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The statements of one dialect for one table, parsed once from
 * {@code operations-<dialect>.sql}: named sections of statements with {@code :name}
 * parameters, which become JDBC {@code ?} placeholders here so that every value is bound.
 * See the file's header for the format.
 */
final class LockStatements {

	private final Map<String, Operation> operations;

	private LockStatements(Map<String, Operation> operations) {
		this.operations = operations;
	}

	static LockStatements load(JdbcDialect dialect, String tableName) {
		String text = dialect.adapt(JdbcLockSchema.render(JdbcLockSchema.load(operationsPath(dialect)), tableName),
				tableName);
		Map<String, List<String>> sections = new HashMap<>();
		Map<String, Boolean> generatedKey = new HashMap<>();
		String current = null;
		for (String line : text.split("\n")) {
			String trimmed = line.strip();
			if (trimmed.startsWith("-- name:")) {
				String[] words = trimmed.substring("-- name:".length()).strip().split("\\s+");
				current = words[0];
				sections.put(current, new ArrayList<>());
				generatedKey.put(current, words.length > 1 && words[1].equals("generated-key"));
			}
			else if (current != null) {
				sections.get(current).add(line);
			}
		}
		Map<String, Operation> operations = new HashMap<>();
		for (String name : sections.keySet()) {
			List<Statement> statements = new ArrayList<>();
			for (String sql : split(expand(name, sections, 0))) {
				statements.add(Statement.parse(sql));
			}
			operations.put(name, new Operation(name, List.copyOf(statements), generatedKey.get(name)));
		}
		return new LockStatements(Map.copyOf(operations));
	}

	static String operationsPath(JdbcDialect dialect) {
		return "dev/distlock/jdbc/operations-" + dialect.scripts() + ".sql";
	}

	Operation get(String name) {
		Operation operation = find(name);
		if (operation == null) {
			throw new IllegalStateException("No statements named " + name);
		}
		return operation;
	}

	/**
	 * The operation of a name the dialect may leave out.
	 * @param name the section name
	 * @return the operation, or {@code null} if the dialect has none of that name
	 */
	@Nullable Operation find(String name) {
		return this.operations.get(name);
	}

	private static String expand(String name, Map<String, List<String>> sections, int depth) {
		if (depth > 4) {
			throw new IllegalStateException("Sections include each other: " + name);
		}
		StringBuilder text = new StringBuilder();
		for (String line : sections.get(name)) {
			String trimmed = line.strip();
			if (trimmed.startsWith("@")) {
				text.append(expand(trimmed.substring(1), sections, depth + 1));
			}
			else {
				text.append(line).append('\n');
			}
		}
		return text.toString();
	}

	/**
	 * Splits a script into statements: comment lines are dropped, a statement ends with
	 * {@code ;} at the end of a line.
	 * @param script the script
	 * @return the statements, without their {@code ;}
	 */
	static List<String> split(String script) {
		List<String> statements = new ArrayList<>();
		StringBuilder statement = new StringBuilder();
		for (String line : script.split("\n")) {
			String trimmed = line.strip();
			if (trimmed.isEmpty() || trimmed.startsWith("--")) {
				continue;
			}
			if (trimmed.endsWith(";")) {
				statement.append(trimmed, 0, trimmed.length() - 1);
				statements.add(statement.toString());
				statement.setLength(0);
			}
			else {
				statement.append(trimmed).append('\n');
			}
		}
		if (!statement.toString().isBlank()) {
			statements.add(statement.toString().strip());
		}
		return statements;
	}

	/**
	 * One operation: its statements run in one transaction, or in one round trip where
	 * the dialect batches.
	 *
	 * @param name the section name
	 * @param statements the statements in order
	 * @param generatedKey whether the result is the single statement's generated key
	 * @param joined the statements as one SQL text, for dialects that send them together
	 * (joined once here: every acquire and release of a batching dialect sends it)
	 */
	record Operation(String name, List<Statement> statements, boolean generatedKey, Statement joined) {

		Operation(String name, List<Statement> statements, boolean generatedKey) {
			this(name, statements, generatedKey, join(statements));
		}

		/**
		 * The operation's only statement, for a JDBC batch that repeats it.
		 * @return the statement
		 * @throws IllegalStateException if the operation has more than one
		 */
		Statement single() {
			if (this.statements.size() != 1) {
				throw new IllegalStateException(
						this.name + " must be one statement to be batched, not " + this.statements.size());
			}
			return this.statements.get(0);
		}

		private static Statement join(List<Statement> statements) {
			StringBuilder sql = new StringBuilder();
			List<String> parameters = new ArrayList<>();
			for (Statement statement : statements) {
				if (!sql.isEmpty()) {
					sql.append(";\n");
				}
				sql.append(statement.sql());
				parameters.addAll(statement.parameters());
			}
			return new Statement(sql.toString(), List.copyOf(parameters), true);
		}

	}

	/**
	 * One statement with {@code ?} placeholders.
	 *
	 * @param sql the SQL text
	 * @param parameters the parameter name of each placeholder, in order
	 * @param query whether it returns rows
	 */
	record Statement(String sql, List<String> parameters, boolean query) {

		/**
		 * Binds each placeholder to its parameter's value.
		 * @param prepared the prepared statement of {@link #sql()}
		 * @param values the values by parameter name
		 * @throws SQLException if the driver refused a value
		 * @throws IllegalStateException if a parameter has no value
		 */
		void bind(PreparedStatement prepared, Map<String, Object> values) throws SQLException {
			for (int i = 0; i < this.parameters.size(); i++) {
				Object value = values.get(this.parameters.get(i));
				if (value == null) {
					throw new IllegalStateException("No value for :" + this.parameters.get(i) + " in " + this.sql);
				}
				if (value instanceof String text) {
					prepared.setString(i + 1, text);
				}
				else if (value instanceof Integer number) {
					prepared.setInt(i + 1, number);
				}
				else if (value instanceof Long number) {
					prepared.setLong(i + 1, number);
				}
				else {
					prepared.setObject(i + 1, value);
				}
			}
		}

		static Statement parse(String text) {
			StringBuilder sql = new StringBuilder();
			List<String> parameters = new ArrayList<>();
			boolean quoted = false;
			for (int i = 0; i < text.length(); i++) {
				char c = text.charAt(i);
				if (c == '\'') {
					quoted = !quoted;
				}
				if (!quoted && c == ':' && i + 1 < text.length() && Character.isLetter(text.charAt(i + 1))
						&& (i == 0 || text.charAt(i - 1) != ':')) {
					int end = i + 1;
					while (end < text.length() && Character.isLetterOrDigit(text.charAt(end))) {
						end++;
					}
					parameters.add(text.substring(i + 1, end));
					sql.append('?');
					i = end - 1;
				}
				else {
					sql.append(c);
				}
			}
			String head = text.stripLeading().toUpperCase(Locale.ROOT);
			return new Statement(sql.toString(), List.copyOf(parameters),
					head.startsWith("SELECT") || head.startsWith("WITH"));
		}

	}

}
