package dev.distlock.sample;

import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts a real ZooKeeper server in this JVM (Curator's {@link TestingServer}) before the
 * test class and stops it when the class's extension context closes, which is after
 * Spring's test context (and its Curator client) closed.
 */
final class ZooKeeperServerExtension implements BeforeAllCallback {

	private static volatile TestingServer server;

	@Override
	public void beforeAll(ExtensionContext context) throws Exception {
		TestingServer started = new TestingServer(true);
		server = started;
		context.getStore(ExtensionContext.Namespace.create(ZooKeeperServerExtension.class))
			.put("server", (AutoCloseable) started::close);
	}

	static String connectString() {
		TestingServer current = server;
		if (current == null) {
			throw new IllegalStateException("ZooKeeperServerExtension has not started a server");
		}
		return current.getConnectString();
	}

}
