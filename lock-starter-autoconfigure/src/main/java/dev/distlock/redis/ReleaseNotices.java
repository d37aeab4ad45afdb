package dev.distlock.redis;

import dev.distlock.core.spi.ReleaseSubscription;

/**
 * Where this JVM's waiters hear of releases: classic pub/sub ({@link ReleaseChannels}) or, on a Redis 7+ Cluster,
 * sharded pub/sub ({@link ShardedReleaseChannels}).
 */
interface ReleaseNotices {

	/**
	 * Calls the listener whenever a release is published on the channel, until the subscription is closed.
	 * @param name the channel
	 * @param listener what to call; cheap, from any thread
	 * @return the subscription, or {@link ReleaseSubscription#NONE} if Redis could not subscribe
	 */
	ReleaseSubscription subscribe(String name, Runnable listener);

	/**
	 * Stops every subscription and closes the connection.
	 */
	void close();

}
