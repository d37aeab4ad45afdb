package dev.distlock.sample;

import dev.distlock.etcd.EtcdCluster;

import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Profile {@code etcd}: locks in a real etcd server that the test starts on a free port
 * (Debian's {@code etcd-server}), only the endpoints changed; data on a private H2 file.
 */
@ActiveProfiles("etcd")
class EtcdProfileTests extends AbstractProfileTests {

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> TestDatabases.h2Url(EtcdProfileTests.class));
		registry.add("distlock.etcd.endpoints", () -> EtcdCluster.shared().endpoints());
	}

	@Override
	String backend() {
		return "etcd";
	}

}
