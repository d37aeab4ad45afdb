package dev.distlock.zookeeper;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.support.SharedTimer;
import org.jspecify.annotations.Nullable;

/**
 * Bounds synchronous ZooKeeper calls made on the caller's thread. A synchronous call's
 * reply is handed to the waiting thread by the client's send thread itself, while a
 * background call's reply makes one more hop, through the client's single event thread,
 * which all threads' calls share. A synchronous call has no deadline of its own, though:
 * it waits until the reply comes or the client gives up on the connection. Here the
 * caller registers its deadline for the length of the call, and a task on distlock's
 * timer ({@link SharedTimer}), which ticks every {@value #TICK_MILLIS} ms while calls are
 * made and is cancelled after a second without any (the next call schedules it again),
 * interrupts a caller whose deadline passed; the call then throws
 * {@link InterruptedException}, which {@link #end(Call)} tells apart from an interrupt of
 * someone else's and clears. The request itself goes on; its reply is dropped.
 */
final class CallDeadlines {

	private static final long TICK_MILLIS = 5;

	private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);

	private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final Set<Call> running = ConcurrentHashMap.newKeySet();

	private final Object startLock = new Object();

	/** The ticking task while calls are made; {@code null} while idle. */
	private volatile @Nullable ScheduledFuture<?> ticking;

	/** When the last tick found a call running; read and written on the timer. */
	private long busySince;

	private volatile boolean closed;

	/**
	 * Registers a call of the current thread that must end by the deadline.
	 * @param until the deadline ({@link System#nanoTime()})
	 * @return the call, to be {@linkplain #end(Call) ended} in every case
	 */
	Call start(long until) {
		Call call = new Call(Thread.currentThread(), until);
		this.running.add(call);
		if (this.ticking == null) {
			startTicking();
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

	private void startTicking() {
		synchronized (this.startLock) {
			if (this.ticking == null && !this.closed) {
				this.busySince = System.nanoTime();
				this.ticking = SharedTimer.scheduleWithFixedDelay(this::tick, TICK_NANOS, TICK_NANOS,
						TimeUnit.NANOSECONDS);
			}
		}
	}

	/** One tick, on the shared timer: interrupts the calls past their deadline. */
	private void tick() {
		long now = System.nanoTime();
		if (this.running.isEmpty()) {
			if (now - this.busySince > IDLE_NANOS) {
				stopIfIdle();
			}
			return;
		}
		this.busySince = now;
		for (Call call : this.running) {
			if (now - call.until >= 0) {
				call.expire();
			}
		}
	}

	/**
	 * Stops ticking while no call runs. The task is marked stopped before the calls are
	 * looked at, and a caller registers its call before it looks at the task, so one of
	 * the two always sees the other.
	 */
	private void stopIfIdle() {
		synchronized (this.startLock) {
			ScheduledFuture<?> current = this.ticking;
			this.ticking = null;
			if (!this.running.isEmpty() && !this.closed) {
				this.ticking = current;
				return;
			}
			if (current != null) {
				current.cancel(false);
			}
		}
	}

	/** Stops ticking; calls still running then end with their replies. */
	void close() {
		synchronized (this.startLock) {
			this.closed = true;
			ScheduledFuture<?> current = this.ticking;
			this.ticking = null;
			if (current != null) {
				current.cancel(false);
			}
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
