package dev.distlock.sample;

import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Profile {@code zookeeper}: locks in a real ZooKeeper server started in this JVM
 * (nothing runs ZooKeeper on the build machine), only the connect string changed; data on
 * a private H2 file.
 */
@ExtendWith(ZooKeeperServerExtension.class)
@ActiveProfiles("zookeeper")
class ZooKeeperProfileTests extends AbstractProfileTests {

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> TestDatabases.h2Url(ZooKeeperProfileTests.class));
		registry.add("distlock.zookeeper.connect-string", ZooKeeperServerExtension::connectString);
	}

	@Override
	String backend() {
		return "zookeeper";
	}

}
