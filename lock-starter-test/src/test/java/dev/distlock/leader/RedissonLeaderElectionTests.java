package dev.distlock.leader;

import dev.distlock.test.TestServers;

/**
 * Leader election across processes on the Redisson backend.
 */
class RedissonLeaderElectionTests extends AbstractLeaderElectionTests {

	@Override
	protected String backendName() {
		return "redisson";
	}

	@Override
	protected String connectString() {
		return TestServers.redisUri().toString();
	}

}
