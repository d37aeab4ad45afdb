package dev.distlock.redis;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.distlock.core.spi.ReleaseSubscription;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Release notifications for every waiter of one provider over one Redis subscription,
 * with one subscribed channel per lock that has waiters in this JVM, however many waiters
 * share it. How channels are subscribed is a {@link PubSub}: classic pub/sub through
 * Spring's listener container ({@link ListenerContainerPubSub}), or sharded pub/sub on a
 * Redis 7+ Cluster ({@link ShardedPubSub}).
 * <p>
 * Subscribing can block without bound (a command timeout each with Lettuce; a half-open
 * socket with Jedis), so no waiter ever makes that call: a channel's first waiter queues
 * its subscription on one subscriber thread and waits for the confirmation only until its
 * own deadline, holding no lock meanwhile, so that a release right after it is not
 * missed. A waiter whose channel is not confirmed in time gets an inactive subscription
 * and polls (it is still called if the confirmation comes later); while the subscriber
 * thread is stuck, later waiters do not wait for it at all. Channels are unsubscribed on
 * the same thread once their last waiter leaves, so a subscribe and an unsubscribe of one
 * channel never overtake each other.
 */
final class ReleaseChannels {

	private static final Log logger = LogFactory.getLog(ReleaseChannels.class);

	private final PubSub pubSub;

	/**
	 * Subscribes and unsubscribes, one at a time and in order, off the waiters' threads.
	 */
	private final ThreadPoolExecutor subscriber = RedisThreads.inOrder("distlock-redis-subscriber-");

	/** Guards the map and each channel's listeners; never held while talking to Redis. */
	private final ReentrantLock lock = new ReentrantLock();

	/** Changed under the lock; read without it when a message arrives. */
	private final Map<String, Channel> channels = new ConcurrentHashMap<>();

	private boolean closed; // guarded by lock

	/**
	 * Set while a waiter gave up on the subscriber thread and it has not finished a task
	 * since.
	 */
	private final AtomicBoolean stalled = new AtomicBoolean();

	private final AtomicBoolean failing = new AtomicBoolean();

	/**
	 * Creates the channels.
	 * @param pubSub makes the pub/sub from the callback that wakes a channel's waiters
	 */
	ReleaseChannels(Function<Consumer<String>, PubSub> pubSub) {
		this.pubSub = pubSub.apply(this::wake);
	}

	/**
	 * Calls the listener whenever a release is published on the channel, until the
	 * subscription is closed.
	 * @param name the channel
	 * @param listener what to call; cheap, from any thread
	 * @param deadlineNanos how long to wait for the channel to be confirmed, on the
	 * {@link System#nanoTime()} scale
	 * @return the subscription, {@link ReleaseSubscription#isActive() inactive} if the
	 * channel was not confirmed by the deadline
	 */
	ReleaseSubscription subscribe(String name, Runnable listener, long deadlineNanos) {
		Channel channel;
		boolean first = false;
		this.lock.lock();
		try {
			if (this.closed) {
				return ReleaseSubscription.NONE;
			}
			channel = this.channels.get(name);
			if (channel == null) {
				channel = new Channel(name);
				this.channels.put(name, channel);
				first = true;
			}
			channel.listeners.add(listener);
		}
		finally {
			this.lock.unlock();
		}
		Channel joined = channel;
		if (first && !onSubscriber(() -> open(joined))) {
			joined.confirmed.completeExceptionally(new IllegalStateException("Release channels are closed"));
		}
		return new Subscription(this, joined, listener, awaitConfirmation(joined, deadlineNanos));
	}

	/**
	 * Calls the listener whenever a release is published on the channel, waiting up to
	 * the timeout for the channel to be confirmed.
	 * @param name the channel
	 * @param listener what to call; cheap, from any thread
	 * @param timeout how long to wait for the confirmation
	 * @return the subscription, inactive if the channel was not confirmed in time
	 */
	ReleaseSubscription subscribe(String name, Runnable listener, Duration timeout) {
		return subscribe(name, listener, System.nanoTime() + timeout.toNanos());
	}

	private boolean awaitConfirmation(Channel channel, long deadlineNanos) {
		CompletableFuture<Void> confirmed = channel.confirmed;
		if (!confirmed.isDone() && this.stalled.get()) {
			return false;
		}
		try {
			confirmed.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
			return true;
		}
		catch (TimeoutException ex) {
			this.stalled.set(true);
			if (logger.isDebugEnabled()) {
				logger.debug("Subscription to " + channel.name + " not confirmed in time; the waiter polls");
			}
			return false;
		}
		catch (ExecutionException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/** On the subscriber thread: subscribes a channel that still has waiters. */
	private void open(Channel channel) {
		try {
			if (!isCurrent(channel)) {
				channel.confirmed.completeExceptionally(new IllegalStateException("Nobody waits any more"));
				return;
			}
			this.pubSub.subscribe(channel.name);
			channel.subscribed = true;
			channel.confirmed.complete(null);
			if (this.failing.compareAndSet(true, false)) {
				logger.info("Release notifications of Redis locks work again");
			}
		}
		catch (RuntimeException ex) {
			drop(channel);
			channel.confirmed.completeExceptionally(ex);
			if (this.failing.compareAndSet(false, true)) {
				logger.warn("Could not subscribe to release notifications of Redis locks; waiters poll until "
						+ "subscribing works again", ex);
			}
			else if (logger.isDebugEnabled()) {
				logger.debug("Could not subscribe to " + channel.name, ex);
			}
		}
		finally {
			this.stalled.set(false);
		}
	}

	/**
	 * Whether the channel is still the map's and has waiters; a channel without them
	 * leaves the map.
	 */
	private boolean isCurrent(Channel channel) {
		this.lock.lock();
		try {
			if (this.closed || this.channels.get(channel.name) != channel) {
				return false;
			}
			if (channel.listeners.isEmpty()) {
				this.channels.remove(channel.name);
				return false;
			}
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void drop(Channel channel) {
		this.lock.lock();
		try {
			this.channels.remove(channel.name, channel);
		}
		finally {
			this.lock.unlock();
		}
	}

	private void leave(Channel channel, Runnable listener) {
		boolean idle;
		this.lock.lock();
		try {
			idle = channel.listeners.remove(listener) && channel.listeners.isEmpty();
		}
		finally {
			this.lock.unlock();
		}
		if (idle) {
			onSubscriber(() -> closeIfIdle(channel));
		}
	}

	/**
	 * On the subscriber thread: unsubscribes a channel whose last waiter left, unless
	 * another one came.
	 */
	private void closeIfIdle(Channel channel) {
		this.lock.lock();
		try {
			if (this.closed || !channel.listeners.isEmpty() || !this.channels.remove(channel.name, channel)) {
				return;
			}
		}
		finally {
			this.lock.unlock();
		}
		if (channel.subscribed) {
			try {
				this.pubSub.unsubscribe(channel.name);
			}
			catch (RuntimeException ex) {
				logger.debug("Could not unsubscribe from " + channel.name, ex);
			}
		}
	}

	private boolean onSubscriber(Runnable task) {
		try {
			this.subscriber.execute(task);
			return true;
		}
		catch (RejectedExecutionException ex) {
			// closed: the subscription is gone with all its channels
			return false;
		}
	}

	private void wake(String name) {
		Channel channel = this.channels.get(name);
		if (channel != null) {
			for (Runnable listener : channel.listeners) {
				try {
					listener.run();
				}
				catch (RuntimeException ex) {
					logger.warn("Release listener of " + name + " failed", ex);
				}
			}
		}
	}

	/**
	 * Stops every subscription and closes the connection.
	 */
	void close() {
		this.lock.lock();
		try {
			if (this.closed) {
				return;
			}
			this.closed = true;
			this.channels.clear();
		}
		finally {
			this.lock.unlock();
		}
		this.subscriber.shutdownNow();
		try {
			this.pubSub.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Could not close the release notification connection", ex);
		}
	}

	/**
	 * How channels are subscribed. Called on the subscriber thread only, one call at a
	 * time; the calls may block.
	 */
	interface PubSub {

		/**
		 * Subscribes a channel and returns once Redis confirmed it.
		 * @param channel the channel
		 */
		void subscribe(String channel);

		/**
		 * Unsubscribes a channel.
		 * @param channel the channel
		 */
		void unsubscribe(String channel);

		/**
		 * Closes the connection.
		 */
		void close();

	}

	/**
	 * One waiter's place on a channel; active if the channel was confirmed while it
	 * waited.
	 *
	 * @param channels where the channel is
	 * @param channel the channel
	 * @param listener the waiter's listener
	 * @param isActive whether notifications come
	 */
	private record Subscription(ReleaseChannels channels, Channel channel, Runnable listener,
			boolean isActive) implements ReleaseSubscription {

		@Override
		public void close() {
			this.channels.leave(this.channel, this.listener);
		}

	}

	/** One lock channel and the waiters of this JVM that listen to it. */
	private static final class Channel {

		private final String name;

		private final Set<Runnable> listeners = new CopyOnWriteArraySet<>();

		private final CompletableFuture<Void> confirmed = new CompletableFuture<>();

		private volatile boolean subscribed;

		Channel(String name) {
			this.name = name;
		}

	}

}
