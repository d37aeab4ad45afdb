package dev.distlock.zookeeper;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * Bounds synchronous ZooKeeper calls made on the caller's thread. A synchronous call's
 * reply is handed to the waiting thread by the client's send thread itself, while a
 * background call's reply makes one more hop, through the client's single event thread,
 * which all threads' calls share. A synchronous call has no deadline of its own, though:
 * it waits until the reply comes or the client gives up on the connection. Here the
 * caller registers its deadline for the length of the call, and one daemon thread, which
 * ticks every {@value #TICK_MILLIS} ms while calls are made and ends after a second
 * without any (the next call starts another), interrupts a caller whose deadline passed;
 * the call then throws {@link InterruptedException}, which {@link #end(Call)} tells apart
 * from an interrupt of someone else's and clears. The request itself goes on; its reply
 * is dropped.
 */
final class CallDeadlines {

	private static final long TICK_MILLIS = 5;

	private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);

	private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final AtomicInteger instances = new AtomicInteger();

	private final Set<Call> running = ConcurrentHashMap.newKeySet();

	private final AtomicReference<@Nullable Thread> ticker = new AtomicReference<>();

	private volatile boolean closed;

	/**
	 * Registers a call of the current thread that must end by the deadline.
	 * @param until the deadline ({@link System#nanoTime()})
	 * @return the call, to be {@linkplain #end(Call) ended} in every case
	 */
	Call start(long until) {
		Call call = new Call(Thread.currentThread(), until);
		this.running.add(call);
		if (this.ticker.get() == null) {
			startTicker();
		}
		return call;
	}

	/**
	 * Ends a call. If its deadline passed while it ran, the interrupt it was sent (or is
	 * being sent) is cleared before this returns.
	 * @param call the call
	 * @return whether the call was interrupted for its deadline
	 */
	boolean end(Call call) {
		this.running.remove(call);
		if (call.finish()) {
			return false;
		}
		call.awaitInterrupt();
		Thread.interrupted();
		return true;
	}

	private void startTicker() {
		if (this.closed) {
			return;
		}
		Thread thread = new Thread(this::run, "distlock-zookeeper-deadlines-" + instances.incrementAndGet());
		thread.setDaemon(true);
		if (this.ticker.compareAndSet(null, thread)) {
			thread.start();
		}
	}

	private void run() {
		Thread self = Thread.currentThread();
		long busySince = System.nanoTime();
		while (!this.closed) {
			long now = System.nanoTime();
			if (this.running.isEmpty()) {
				if (now - busySince > IDLE_NANOS) {
					// end, unless a call came in meanwhile and found this thread still
					// there: a caller that finds none starts one
					this.ticker.compareAndSet(self, null);
					if (this.running.isEmpty() || !this.ticker.compareAndSet(null, self)) {
						return;
					}
					busySince = System.nanoTime();
					continue;
				}
			}
			else {
				busySince = now;
				for (Call call : this.running) {
					if (now - call.until >= 0) {
						call.expire();
					}
				}
			}
			LockSupport.parkNanos(this, TICK_NANOS);
		}
	}

	/** Stops the ticker; calls still running then end with their replies. */
	void close() {
		this.closed = true;
		Thread current = this.ticker.get();
		if (current != null) {
			LockSupport.unpark(current);
		}
	}

	/** One running call. */
	static final class Call {

		static final int RUNNING = 0;

		static final int INTERRUPTING = 1;

		static final int INTERRUPTED = 2;

		static final int DONE = 3;

		private static final VarHandle STATE;

		static {
			try {
				STATE = MethodHandles.lookup().findVarHandle(Call.class, "value", int.class);
			}
			catch (ReflectiveOperationException ex) {
				throw new ExceptionInInitializerError(ex);
			}
		}

		private final Thread thread;

		private final long until;

		@SuppressWarnings("unused")
		private volatile int value = RUNNING;

		Call(Thread thread, long until) {
			this.thread = thread;
			this.until = until;
		}

		/**
		 * Marks the call done unless its deadline's interrupt came first.
		 * @return whether it was marked done
		 */
		boolean finish() {
			return STATE.compareAndSet(this, RUNNING, DONE);
		}

		/** Waits until the deadline's interrupt has been sent. */
		void awaitInterrupt() {
			while ((int) STATE.getVolatile(this) != INTERRUPTED) {
				Thread.onSpinWait();
			}
		}

		void expire() {
			if (STATE.compareAndSet(this, RUNNING, INTERRUPTING)) {
				this.thread.interrupt();
				STATE.setVolatile(this, INTERRUPTED);
			}
		}

	}

}
