package dev.distlock.jdbc;

import java.sql.SQLException;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * What a failed statement means for a lock operation, read from Spring's
 * {@link DataAccessException} tree: the database's error codes
 * ({@code sql-error-codes.xml}, through {@link SQLErrorCodeSQLExceptionTranslator}), else
 * the JDBC exception subclass, else the SQLState class.
 * <ul>
 * <li>Contention: the database rolled the attempt back because another one won (a
 * deadlock, a lock wait or statement timeout, a serialization failure, a unique-key
 * race), so nothing is held and the attempt is simply busy.</li>
 * <li>Broken connection: the connection or the server failed, so whether the statement
 * took effect is unknown.</li>
 * </ul>
 */
final class SqlFailures {

	private final SQLExceptionTranslator translator;

	SqlFailures(JdbcDialect dialect) {
		this.translator = new SQLErrorCodeSQLExceptionTranslator(dialect.errorCodesName());
	}

	/**
	 * Translates an error into Spring's tree.
	 * @param task what was being done, for the message
	 * @param ex the error
	 * @return the translated exception, {@link UncategorizedSQLException} when nothing
	 * more is known
	 */
	DataAccessException translate(String task, SQLException ex) {
		// no SQL in the message: an operation's statements are long, and the task names
		// them
		DataAccessException translated = this.translator.translate(task, null, ex);
		return (translated != null) ? translated : new UncategorizedSQLException(task, null, ex);
	}

	/**
	 * Whether an error means another attempt won, and the database rolled this one back.
	 * @param translated the translated error
	 * @return {@code true} for contention
	 */
	static boolean isContention(DataAccessException translated) {
		return translated instanceof PessimisticLockingFailureException || translated instanceof DuplicateKeyException
				|| translated instanceof QueryTimeoutException;
	}

	/**
	 * Whether an error means the connection or the server failed (a terminated session, a
	 * dropped socket) rather than the statement.
	 * @param translated the translated error
	 * @return {@code true} for a broken connection
	 */
	static boolean isBrokenConnection(DataAccessException translated) {
		return translated instanceof DataAccessResourceFailureException
				|| translated instanceof TransientDataAccessResourceException
				|| translated instanceof RecoverableDataAccessException;
	}

}
