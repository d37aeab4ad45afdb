package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Classic pub/sub for {@link ReleaseChannels}: one {@link RedisMessageListenerContainer}
 * (one connection, whatever the driver) with one listener for every channel. The
 * connection opens with the first channel and then stays open: the container closes it
 * when its last channel goes, and reopening it would cost a connect on every contended
 * acquisition, so a channel nobody publishes on ({@link #ANCHOR}) keeps it.
 */
final class ListenerContainerPubSub implements ReleaseChannels.PubSub, MessageListener {

	/**
	 * A channel nobody publishes on; listening to it keeps the shared connection open
	 * between waits.
	 */
	static final String ANCHOR = "distlock:redis:subscriber";

	private final RedisMessageListenerContainer container;

	/**
	 * The container's own executor: recovery after a failed subscription, the listening
	 * loop of blocking drivers.
	 */
	private final ScheduledThreadPoolExecutor listening;

	private final Consumer<String> wake;

	private boolean anchored;

	ListenerContainerPubSub(RedisConnectionFactory connectionFactory, Duration registrationTimeout,
			Consumer<String> wake) {
		this.wake = wake;
		CustomizableThreadFactory threads = new CustomizableThreadFactory("distlock-redis-listener-");
		threads.setDaemon(true);
		this.listening = new ScheduledThreadPoolExecutor(1, threads);
		this.container = new RedisMessageListenerContainer();
		this.container.setConnectionFactory(connectionFactory);
		// listeners only signal waiting threads: run them on the driver's thread rather
		// than a thread per message
		this.container.setTaskExecutor(new SyncTaskExecutor());
		this.container.setSubscriptionExecutor(this.listening);
		this.container.setMaxSubscriptionRegistrationWaitingTime(registrationTimeout.toMillis());
		this.container.afterPropertiesSet();
		// without listeners, starting opens no connection
		this.container.start();
	}

	@Override
	public void subscribe(String channel) {
		if (!this.anchored) {
			add(ANCHOR);
			this.anchored = true;
		}
		add(channel);
	}

	private void add(String channel) {
		ChannelTopic topic = ChannelTopic.of(channel);
		try {
			this.container.addMessageListener(this, topic);
		}
		catch (RuntimeException ex) {
			// the container keeps a listener it failed to subscribe; drop it so a later
			// attempt starts clean
			this.container.removeMessageListener(this, topic);
			throw ex;
		}
	}

	@Override
	public void unsubscribe(String channel) {
		this.container.removeMessageListener(this, ChannelTopic.of(channel));
	}

	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		this.wake.accept(new String(message.getChannel(), StandardCharsets.UTF_8));
	}

	@Override
	public void close() {
		try {
			this.container.destroy();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not stop the release listener container", ex);
		}
		finally {
			this.listening.shutdownNow();
		}
	}

}
