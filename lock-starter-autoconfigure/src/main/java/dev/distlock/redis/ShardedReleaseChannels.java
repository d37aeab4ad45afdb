package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import dev.distlock.core.spi.ReleaseSubscription;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Release notifications over sharded pub/sub ({@code SSUBSCRIBE}, Redis 7+) on a Redis Cluster: a notice travels only
 * to the shard that owns the lock's slot (the channel carries the lock's hash tag), instead of every node of the
 * cluster as classic pub/sub does. One Lettuce cluster pub/sub connection, on the application's own cluster client,
 * routes each channel's subscription to the node of its slot and hands every node's messages to one listener.
 * <p>
 * A channel is subscribed when its first waiter arrives (the waiter waits for the confirmation, so a release right
 * after it is not missed) and unsubscribed off the waiters' threads when its last one leaves. If subscribing fails,
 * or a slot moves and the server ends the subscription, waiters poll ({@code distlock.wait.fallback-poll}).
 */
final class ShardedReleaseChannels implements ReleaseNotices {

	private static final Log logger = LogFactory.getLog(ShardedReleaseChannels.class);

	private final RedisClusterClient client;

	private final Duration timeout;

	private final ReentrantLock lock = new ReentrantLock();

	private final Map<String, Set<Runnable>> channels = new ConcurrentHashMap<>();

	private final ThreadPoolExecutor unsubscriber = new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS,
			new LinkedBlockingQueue<>(), daemon("distlock-redis-unsubscriber-"));

	private @Nullable StatefulRedisClusterPubSubConnection<byte[], byte[]> connection; // guarded by lock

	private boolean closed; // guarded by lock

	ShardedReleaseChannels(RedisClusterClient client, Duration timeout) {
		this.client = client;
		this.timeout = timeout;
	}

	@Override
	public ReleaseSubscription subscribe(String name, Runnable listener) {
		this.lock.lock();
		try {
			if (this.closed) {
				return ReleaseSubscription.NONE;
			}
			Set<Runnable> listeners = this.channels.get(name);
			if (listeners == null) {
				StatefulRedisClusterPubSubConnection<byte[], byte[]> pubSub = connection();
				LettuceFutures.awaitOrCancel(pubSub.async().ssubscribe(bytes(name)), this.timeout.toMillis(),
						TimeUnit.MILLISECONDS);
				listeners = new CopyOnWriteArraySet<>();
				this.channels.put(name, listeners);
			}
			listeners.add(listener);
			Set<Runnable> subscribed = listeners;
			return () -> leave(name, subscribed, listener);
		}
		catch (RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Could not subscribe to " + name + " (sharded); waiters poll", ex);
			}
			return ReleaseSubscription.NONE;
		}
		finally {
			this.lock.unlock();
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
					wake(channel);
				}

			});
			this.connection = current;
		}
		return current;
	}

	private void wake(byte[] channel) {
		Set<Runnable> listeners = this.channels.get(new String(channel, StandardCharsets.UTF_8));
		if (listeners != null) {
			for (Runnable listener : listeners) {
				try {
					listener.run();
				}
				catch (RuntimeException ex) {
					logger.warn("Release listener failed", ex);
				}
			}
		}
	}

	private void leave(String name, Set<Runnable> listeners, Runnable listener) {
		if (listeners.remove(listener) && listeners.isEmpty()) {
			try {
				this.unsubscriber.execute(() -> unsubscribeIfIdle(name, listeners));
			}
			catch (RejectedExecutionException ex) {
				// closed: the connection is gone with all its channels
			}
		}
	}

	private void unsubscribeIfIdle(String name, Set<Runnable> listeners) {
		this.lock.lock();
		try {
			if (this.closed || !listeners.isEmpty() || !this.channels.remove(name, listeners)) {
				return;
			}
			StatefulRedisClusterPubSubConnection<byte[], byte[]> pubSub = this.connection;
			if (pubSub != null) {
				LettuceFutures.awaitOrCancel(pubSub.async().sunsubscribe(bytes(name)), this.timeout.toMillis(),
						TimeUnit.MILLISECONDS);
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Could not unsubscribe from " + name + " (sharded)", ex);
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void close() {
		StatefulRedisClusterPubSubConnection<byte[], byte[]> pubSub;
		this.lock.lock();
		try {
			this.closed = true;
			this.channels.clear();
			pubSub = this.connection;
			this.connection = null;
		}
		finally {
			this.lock.unlock();
		}
		this.unsubscriber.shutdownNow();
		if (pubSub != null) {
			pubSub.close();
		}
	}

	private static byte[] bytes(String name) {
		return name.getBytes(StandardCharsets.UTF_8);
	}

	private static CustomizableThreadFactory daemon(String prefix) {
		CustomizableThreadFactory factory = new CustomizableThreadFactory(prefix);
		factory.setDaemon(true);
		return factory;
	}

}
