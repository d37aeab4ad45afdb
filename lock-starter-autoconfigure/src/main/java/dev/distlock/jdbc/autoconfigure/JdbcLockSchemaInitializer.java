package dev.distlock.jdbc.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.distlock.jdbc.JdbcLockSchema;

import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;
import org.springframework.util.StreamUtils;

/**
 * Creates distlock's lock table at startup, following
 * {@code distlock.jdbc.initialize-schema}: with the script of the detected database (or
 * {@code distlock.jdbc.platform}; MySQL uses MariaDB's script) and the configured table
 * name put in. A Spring Boot database initializer, so beans marked
 * {@code @DependsOnDatabaseInitialization} (the lock provider among them) start after it.
 *
 * @since 0.1.0
 */
public class JdbcLockSchemaInitializer extends DataSourceScriptDatabaseInitializer {

	private final String tableName;

	/**
	 * Creates an initializer.
	 * @param dataSource the database
	 * @param properties the JDBC lock properties
	 */
	public JdbcLockSchemaInitializer(DataSource dataSource, JdbcLockProperties properties) {
		super(dataSource, settings(dataSource, properties));
		this.tableName = JdbcLockSchema.validateTableName(properties.getTableName());
	}

	static DatabaseInitializationSettings settings(DataSource dataSource, JdbcLockProperties properties) {
		DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
		DatabaseInitializationMode mode = properties.getInitializeSchema();
		settings.setMode(mode);
		settings.setContinueOnError(properties.isContinueOnError());
		boolean needed = mode == DatabaseInitializationMode.ALWAYS
				|| (mode == DatabaseInitializationMode.EMBEDDED && EmbeddedDatabaseConnection.isEmbedded(dataSource));
		// only look at the database when a script will run: detecting its type needs a
		// connection
		settings.setSchemaLocations(needed ? List.of(schemaLocation(dataSource, properties)) : List.of());
		return settings;
	}

	private static String schemaLocation(DataSource dataSource, JdbcLockProperties properties) {
		String location = properties.getSchema();
		if (!location.contains("@@platform@@")) {
			return location;
		}
		String detected = JdbcLockSchema.scriptLocation(dataSource, properties.getPlatform());
		String platform = detected.substring(detected.lastIndexOf("schema-") + "schema-".length(),
				detected.length() - ".sql".length());
		return location.replace("@@platform@@", platform);
	}

	@Override
	protected void runScripts(Scripts scripts) {
		Charset encoding = (scripts.getEncoding() != null) ? scripts.getEncoding() : StandardCharsets.UTF_8;
		List<Resource> rendered = new ArrayList<>();
		for (Resource script : scripts) {
			try {
				String text = StreamUtils.copyToString(script.getInputStream(), encoding);
				rendered.add(new ByteArrayResource(JdbcLockSchema.render(text, this.tableName).getBytes(encoding),
						script.getDescription()));
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not read " + script, ex);
			}
		}
		super.runScripts(new Scripts(rendered).continueOnError(scripts.isContinueOnError())
			.separator(scripts.getSeparator())
			.encoding(encoding));
	}

}
