package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;

/**
 * Sharded pub/sub ({@code SSUBSCRIBE}, Redis 7+) for {@link ReleaseChannels} on a Redis
 * Cluster: a notice travels only to the shard that owns the lock's slot (the channel
 * carries the lock's hash tag), instead of every node of the cluster as classic pub/sub
 * does. One Lettuce cluster pub/sub connection, on the application's own cluster client,
 * routes each channel's subscription to the node of its slot and hands every node's
 * messages to one listener. If a slot moves and the server ends the subscription, waiters
 * poll ({@code distlock.wait.fallback-poll}).
 */
final class ShardedPubSub implements ReleaseChannels.PubSub {

	private final RedisClusterClient client;

	private final Duration timeout;

	private final Consumer<String> wake;

	private volatile @Nullable StatefulRedisClusterPubSubConnection<byte[], byte[]> connection;

	ShardedPubSub(RedisClusterClient client, Duration timeout, Consumer<String> wake) {
		this.client = client;
		this.timeout = timeout;
		this.wake = wake;
	}

	@Override
	public void subscribe(String channel) {
		LettuceFutures.awaitOrCancel(connection().async().ssubscribe(bytes(channel)), this.timeout.toMillis(),
				TimeUnit.MILLISECONDS);
	}

	@Override
	public void unsubscribe(String channel) {
		StatefulRedisClusterPubSubConnection<byte[], byte[]> pubSub = this.connection;
		if (pubSub != null) {
			LettuceFutures.awaitOrCancel(pubSub.async().sunsubscribe(bytes(channel)), this.timeout.toMillis(),
					TimeUnit.MILLISECONDS);
		}
	}

	private StatefulRedisClusterPubSubConnection<byte[], byte[]> connection() {
		StatefulRedisClusterPubSubConnection<byte[], byte[]> current = this.connection;
		if (current == null) {
			current = this.client.connectPubSub(ByteArrayCodec.INSTANCE);
			current.setNodeMessagePropagation(true);
			current.addListener(new RedisClusterPubSubAdapter<>() {

				@Override
				public void smessage(RedisClusterNode node, byte[] channel, byte[] message) {
					ShardedPubSub.this.wake.accept(new String(channel, StandardCharsets.UTF_8));
				}

			});
			this.connection = current;
		}
		return current;
	}

	@Override
	public void close() {
		StatefulRedisClusterPubSubConnection<byte[], byte[]> pubSub = this.connection;
		this.connection = null;
		if (pubSub != null) {
			pubSub.close();
		}
	}

	private static byte[] bytes(String name) {
		return name.getBytes(StandardCharsets.UTF_8);
	}

}
