package dev.distlock.redis;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The Redis backend's own daemon threads, started on demand and gone after 30 s idle, so
 * that a provider nobody uses costs no thread.
 */
final class RedisThreads {

	private RedisThreads() {
	}

	/**
	 * One thread working through a queue in order.
	 * @param prefix the thread name prefix
	 * @return the executor
	 */
	static ThreadPoolExecutor inOrder(String prefix) {
		ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				daemon(prefix));
		executor.allowCoreThreadTimeOut(true);
		return executor;
	}

	/**
	 * Up to {@code threads} threads, each running one task; a task beyond that is
	 * rejected.
	 * @param threads the most threads
	 * @param prefix the thread name prefix
	 * @return the executor
	 */
	static ThreadPoolExecutor upTo(int threads, String prefix) {
		return new ThreadPoolExecutor(0, threads, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), daemon(prefix));
	}

	private static CustomizableThreadFactory daemon(String prefix) {
		CustomizableThreadFactory factory = new CustomizableThreadFactory(prefix);
		factory.setDaemon(true);
		return factory;
	}

}
