package dev.distlock.etcd;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;

/**
 * A gRPC client interceptor for a test's jetcd client: it counts the calls the client
 * starts, by method ({@code Txn}, {@code Range}, {@code DeleteRange}, {@code Watch},
 * {@code LeaseKeepAlive}, ...), and can hold back the next transaction: a held
 * transaction is sent only when the test lets it go ({@link LateTransaction#land()}), so
 * it reaches the servers after its caller gave up, and its reply is then passed on as it
 * came or replaced by a failure, as a connection lost after the servers applied it would
 * be.
 */
final class EtcdRpcs implements ClientInterceptor {

	private final Map<String, AtomicInteger> started = new ConcurrentHashMap<>();

	private final AtomicReference<LateTransaction> late = new AtomicReference<>();

	@Override
	public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
		String name = method.getBareMethodName();
		this.started.computeIfAbsent(name, (key) -> new AtomicInteger()).incrementAndGet();
		ClientCall<Q, A> call = next.newCall(method, options);
		if ("Txn".equals(name)) {
			LateTransaction held = this.late.getAndSet(null);
			if (held != null) {
				return held.hold(call);
			}
		}
		return call;
	}

	/**
	 * The calls started so far, by method.
	 * @return a copy of the counts
	 */
	Map<String, Integer> counts() {
		Map<String, Integer> counts = new TreeMap<>();
		this.started.forEach((name, count) -> counts.put(name, count.get()));
		return counts;
	}

	/**
	 * Calls of one method started so far.
	 * @param method the bare method name, e.g. {@code Txn}
	 * @return the count
	 */
	int count(String method) {
		AtomicInteger count = this.started.get(method);
		return (count != null) ? count.get() : 0;
	}

	/**
	 * Holds back the next transaction the client starts.
	 * @param failAfterLanding whether its reply is replaced by a failure once the servers
	 * answered
	 * @return the handle to let it go and to learn when its reply was passed on
	 */
	LateTransaction holdNextTransaction(boolean failAfterLanding) {
		LateTransaction held = new LateTransaction(failAfterLanding);
		this.late.set(held);
		return held;
	}

	/** One transaction held back. */
	static final class LateTransaction {

		private final boolean failAfterLanding;

		private final CountDownLatch go = new CountDownLatch(1);

		private final CountDownLatch held = new CountDownLatch(1);

		private final CountDownLatch answered = new CountDownLatch(1);

		/** Runs the call's every step in order, once the test let it go. */
		private final ExecutorService steps = Executors.newSingleThreadExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "etcd-late-txn");
			thread.setDaemon(true);
			return thread;
		});

		private LateTransaction(boolean failAfterLanding) {
			this.failAfterLanding = failAfterLanding;
			this.steps.execute(() -> {
				try {
					this.go.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			});
		}

		/**
		 * Waits until the client started the transaction this handle holds.
		 * @param seconds how long to wait at most
		 * @return whether it did
		 */
		boolean awaitHeld(long seconds) throws InterruptedException {
			return this.held.await(seconds, TimeUnit.SECONDS);
		}

		/** Sends the held transaction now. */
		void land() {
			this.go.countDown();
		}

		/**
		 * Waits until the transaction's reply (or the failure replacing it) was passed to
		 * the client.
		 * @param seconds how long to wait at most
		 * @return whether it was
		 */
		boolean awaitAnswered(long seconds) throws InterruptedException {
			return this.answered.await(seconds, TimeUnit.SECONDS);
		}

		private <Q, A> ClientCall<Q, A> hold(ClientCall<Q, A> call) {
			this.held.countDown();
			return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {

				@Override
				public void start(Listener<A> listener, Metadata headers) {
					LateTransaction.this.steps.execute(() -> super.start(answer(listener), headers));
				}

				@Override
				public void request(int count) {
					LateTransaction.this.steps.execute(() -> super.request(count));
				}

				@Override
				public void sendMessage(Q message) {
					LateTransaction.this.steps.execute(() -> super.sendMessage(message));
				}

				@Override
				public void halfClose() {
					LateTransaction.this.steps.execute(super::halfClose);
				}

				@Override
				public void cancel(String message, Throwable cause) {
					LateTransaction.this.steps.execute(() -> super.cancel(message, cause));
				}

			};
		}

		private <A> ClientCall.Listener<A> answer(ClientCall.Listener<A> listener) {
			return new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {

				@Override
				public void onMessage(A message) {
					if (!LateTransaction.this.failAfterLanding) {
						super.onMessage(message);
					}
				}

				@Override
				public void onClose(Status status, Metadata trailers) {
					if (LateTransaction.this.failAfterLanding && status.isOk()) {
						super.onClose(Status.INTERNAL.withDescription("connection lost after the transaction applied"),
								new Metadata());
					}
					else {
						super.onClose(status, trailers);
					}
					LateTransaction.this.answered.countDown();
					LateTransaction.this.steps.shutdown();
				}

			};
		}

	}

}
