package dev.distlock.jdbc.autoconfigure;

import java.time.Duration;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Positive;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.jdbc.init.DatabaseInitializationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * Configuration of the JDBC lock backend, under {@code distlock.jdbc.*}. Schema creation
 * follows Spring Boot's conventions ({@code initialize-schema}: {@code embedded} by
 * default, {@code always}, {@code never}; {@code schema}: the script,
 * {@code @@platform@@} standing for the database).
 *
 * @since 0.1.0
 */
@ConfigurationProperties("distlock.jdbc")
@Validated
public class JdbcLockProperties extends DatabaseInitializationProperties {

	/**
	 * Whether to register this backend beside the default one; unset means only when
	 * distlock.provider names it or it is the only backend.
	 */
	private @Nullable Boolean enabled;

	/**
	 * Name of the lock table, optionally qualified by a schema.
	 */
	@NotBlank
	private String tableName = "distlock_lock";

	/**
	 * How long a FAIR waiter keeps its place in the queue without trying again. Should
	 * exceed distlock.wait.max-backoff and distlock.wait.fallback-poll.
	 */
	private Duration fairWaiterTimeout = Duration.ofSeconds(5);

	/**
	 * Whether waiters on PostgreSQL are woken by LISTEN/NOTIFY, over one extra connection
	 * per application.
	 */
	private boolean notifications = true;

	/**
	 * How often released and expired lock rows are deleted; a released lock's row stays
	 * at most about this long. 0 turns the background sweep off.
	 */
	private Duration cleanupInterval = Duration.ofSeconds(30);

	/**
	 * Most rows one sweep transaction deletes; a sweep deletes batches until one comes
	 * back short.
	 */
	@Positive
	private int cleanupBatchSize = 500;

	/**
	 * Shortest time a statement of an acquire attempt may wait for a row another
	 * transaction holds, used when less of the caller's wait is left (a try-once).
	 * Statements never wait longer than that or the caller's remaining wait.
	 */
	private Duration minLockWait = Duration.ofMillis(200);

	@Override
	public String getDefaultSchemaLocation() {
		return "classpath:dev/distlock/jdbc/schema-@@platform@@.sql";
	}

	public @Nullable Boolean getEnabled() {
		return this.enabled;
	}

	public void setEnabled(@Nullable Boolean enabled) {
		this.enabled = enabled;
	}

	public String getTableName() {
		return this.tableName;
	}

	public void setTableName(String tableName) {
		this.tableName = tableName;
	}

	public Duration getFairWaiterTimeout() {
		return this.fairWaiterTimeout;
	}

	public void setFairWaiterTimeout(Duration fairWaiterTimeout) {
		this.fairWaiterTimeout = fairWaiterTimeout;
	}

	public Duration getCleanupInterval() {
		return this.cleanupInterval;
	}

	public void setCleanupInterval(Duration cleanupInterval) {
		this.cleanupInterval = cleanupInterval;
	}

	public int getCleanupBatchSize() {
		return this.cleanupBatchSize;
	}

	public void setCleanupBatchSize(int cleanupBatchSize) {
		this.cleanupBatchSize = cleanupBatchSize;
	}

	public Duration getMinLockWait() {
		return this.minLockWait;
	}

	public void setMinLockWait(Duration minLockWait) {
		this.minLockWait = minLockWait;
	}

	public boolean isNotifications() {
		return this.notifications;
	}

	public void setNotifications(boolean notifications) {
		this.notifications = notifications;
	}

}
