package dev.distlock.fencing;

import java.util.regex.Pattern;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Fenced SQL updates:
 * {@code fencing.update("account").set("balance", 120).where("id", 42).execute()} changes
 * the row only if its token column holds no token greater than the current lease's, and
 * records the lease's token in it, in one statement; when the row has recorded a greater
 * token it changes nothing and throws {@link StaleFencingTokenException}. The table needs
 * one nullable {@code BIGINT} column for the token ({@value #DEFAULT_TOKEN_COLUMN} unless
 * told otherwise). The condition is {@code stored <= token}: equal tokens pass, because
 * one lease (and its re-entrant holds) may write a row several times with its one token,
 * and every earlier holder is still refused, because two holders of an exclusive lock
 * never share a token (docs/fencing.md).
 * <p>
 * Table and column names are checked to be plain SQL identifiers (letters, digits,
 * {@code _}, {@code $}, one optional schema qualifier); values are always bind
 * parameters. Thread-safe.
 *
 * @since 0.1.0
 */
public class JdbcFencing {

	/**
	 * The token column used unless a {@link FencedUpdate#tokenColumn(String) different
	 * one} is named.
	 */
	public static final String DEFAULT_TOKEN_COLUMN = "fencing_token";

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*(\\.[A-Za-z_][A-Za-z0-9_$]*)?");

	private final JdbcClient jdbcClient;

	private final FencingListener listener;

	/**
	 * Creates fenced updates over a {@link JdbcClient}.
	 * @param jdbcClient the client, usually the application's
	 * @param listener told of every refusal (metrics)
	 */
	public JdbcFencing(JdbcClient jdbcClient, FencingListener listener) {
		this.jdbcClient = jdbcClient;
		this.listener = listener;
	}

	/**
	 * Creates fenced updates over a {@link JdbcTemplate}, with no listener.
	 * @param jdbcTemplate the template
	 */
	public JdbcFencing(JdbcTemplate jdbcTemplate) {
		this(JdbcClient.create(jdbcTemplate), (store, name, exception) -> {
		});
	}

	/**
	 * Starts a fenced update of rows of a table.
	 * @param table the table, a plain SQL identifier, optionally schema-qualified
	 * @return the update to describe and {@link FencedUpdate#execute() execute}
	 * @throws IllegalArgumentException if the name is not a plain identifier
	 */
	public FencedUpdate update(String table) {
		return new FencedUpdate(this, identifier("table", table));
	}

	static String identifier(String what, String name) {
		if (name == null || !IDENTIFIER.matcher(name).matches()) {
			throw new IllegalArgumentException("Fenced update: " + what + " name '" + name + "' is not a plain SQL "
					+ "identifier (letters, digits, '_', '$', optionally schema-qualified); quoted names are not "
					+ "supported");
		}
		return name;
	}

	JdbcClient jdbcClient() {
		return this.jdbcClient;
	}

	FencingListener listener() {
		return this.listener;
	}

}
