package dev.distlock.leader;

import dev.distlock.test.TestServers;

/**
 * Leader election across processes on the Redis backend ({@code dev.distlock.redis}).
 */
class RedisLeaderElectionTests extends AbstractLeaderElectionTests {

	@Override
	protected String backendName() {
		return "redis";
	}

	@Override
	protected String connectString() {
		return TestServers.redisUri().toString();
	}

}
