package dev.distlock.redis;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import dev.distlock.core.spi.ReleaseSubscription;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Release notifications for every waiter of one provider over one Redis subscription: a single
 * {@link RedisMessageListenerContainer} (one connection, whatever the driver) with one listener per lock channel that
 * has waiters in this JVM, however many waiters share it.
 * <p>
 * The connection opens with the first waiter and then stays open: the container closes its connection when its last
 * listener goes, and reopening it would cost a connect on every contended acquisition, so a listener on a channel
 * nobody publishes on ({@link #ANCHOR}) keeps it. A channel is subscribed when its first waiter arrives (the waiter
 * waits for the subscription to be confirmed, so a release right after it is not missed) and unsubscribed off the
 * waiters' threads when its last one leaves. Subscribing and unsubscribing are serialized, since the container does
 * not define concurrent changes. When subscribing fails, waiters get {@link ReleaseSubscription#NONE} and poll.
 */
final class ReleaseChannels implements ReleaseNotices {

	/** A channel nobody publishes on; listening to it keeps the shared connection open between waits. */
	static final String ANCHOR = "distlock:redis:subscriber";

	private static final Log logger = LogFactory.getLog(ReleaseChannels.class);

	private final RedisMessageListenerContainer container;

	/** The container's own executor: recovery after a failed subscription, the listening loop of blocking drivers. */
	private final ScheduledThreadPoolExecutor subscriber;

	/** Unsubscribes idle channels, so a waiter that leaves never waits for Redis. */
	private final ThreadPoolExecutor unsubscriber;

	private final ReentrantLock lock = new ReentrantLock();

	private final Map<String, Channel> channels = new HashMap<>(); // guarded by lock

	private @Nullable Channel anchor; // guarded by lock

	private boolean closed; // guarded by lock

	private final AtomicBoolean failing = new AtomicBoolean();

	ReleaseChannels(RedisConnectionFactory connectionFactory, Duration registrationTimeout) {
		this.subscriber = new ScheduledThreadPoolExecutor(1, daemon("distlock-redis-subscriber-"));
		this.unsubscriber = new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				daemon("distlock-redis-unsubscriber-"));
		this.container = new RedisMessageListenerContainer();
		this.container.setConnectionFactory(connectionFactory);
		// listeners only signal waiting threads: run them on the driver's thread rather than a thread per message
		this.container.setTaskExecutor(new SyncTaskExecutor());
		this.container.setSubscriptionExecutor(this.subscriber);
		this.container.setMaxSubscriptionRegistrationWaitingTime(registrationTimeout.toMillis());
		this.container.afterPropertiesSet();
		// without listeners, starting opens no connection
		this.container.start();
	}

	/**
	 * Calls the listener whenever a release is published on the channel, until the subscription is closed.
	 * @param name the channel
	 * @param listener what to call; cheap, from any thread
	 * @return the subscription, or {@link ReleaseSubscription#NONE} if Redis could not subscribe
	 */
	@Override
	public ReleaseSubscription subscribe(String name, Runnable listener) {
		this.lock.lock();
		try {
			if (this.closed) {
				return ReleaseSubscription.NONE;
			}
			Channel channel = this.channels.get(name);
			if (channel == null) {
				openConnection();
				channel = new Channel(name);
				add(channel);
				this.channels.put(name, channel);
			}
			channel.listeners.add(listener);
			if (this.failing.compareAndSet(true, false)) {
				logger.info("Release notifications of Redis locks work again");
			}
			Channel subscribed = channel;
			return () -> leave(subscribed, listener);
		}
		catch (RuntimeException ex) {
			if (this.failing.compareAndSet(false, true)) {
				logger.warn("Could not subscribe to release notifications of Redis locks; waiters poll until "
						+ "subscribing works again", ex);
			}
			else if (logger.isDebugEnabled()) {
				logger.debug("Could not subscribe to " + name, ex);
			}
			return ReleaseSubscription.NONE;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void openConnection() {
		if (this.anchor == null) {
			Channel anchor = new Channel(ANCHOR);
			add(anchor);
			this.anchor = anchor;
		}
	}

	private void add(Channel channel) {
		try {
			this.container.addMessageListener(channel, channel.topic);
		}
		catch (RuntimeException ex) {
			// the container keeps a listener it failed to subscribe; drop it so a later attempt starts clean
			if (channel.name.equals(ANCHOR)) {
				this.anchor = null;
			}
			removeLater(channel);
			throw ex;
		}
	}

	private void leave(Channel channel, Runnable listener) {
		if (channel.listeners.remove(listener) && channel.listeners.isEmpty()) {
			removeLater(channel);
		}
	}

	private void removeLater(Channel channel) {
		try {
			this.unsubscriber.execute(() -> removeIfIdle(channel));
		}
		catch (RejectedExecutionException ex) {
			// closed: the container is gone with all its channels
		}
	}

	private void removeIfIdle(Channel channel) {
		this.lock.lock();
		try {
			if (this.closed || channel == this.anchor || !channel.listeners.isEmpty()) {
				return;
			}
			this.channels.remove(channel.name, channel);
			this.container.removeMessageListener(channel, channel.topic);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not unsubscribe from " + channel.name, ex);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Stops every subscription and closes the connection.
	 */
	@Override
	public void close() {
		this.lock.lock();
		try {
			if (this.closed) {
				return;
			}
			this.closed = true;
			this.channels.clear();
			this.anchor = null;
		}
		finally {
			this.lock.unlock();
		}
		this.unsubscriber.shutdownNow();
		try {
			this.container.destroy();
		}
		catch (Exception ex) {
			logger.debug("Could not stop the release listener container", ex);
		}
		this.subscriber.shutdownNow();
	}

	private static ThreadFactory daemon(String prefix) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

	/** One lock channel and the waiters of this JVM that listen to it. */
	private static final class Channel implements MessageListener {

		private final String name;

		private final ChannelTopic topic;

		private final Set<Runnable> listeners = new CopyOnWriteArraySet<>();

		Channel(String name) {
			this.name = name;
			this.topic = ChannelTopic.of(name);
		}

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			for (Runnable listener : this.listeners) {
				try {
					listener.run();
				}
				catch (RuntimeException ex) {
					logger.warn("Release listener of " + this.name + " failed", ex);
				}
			}
		}

	}

}
