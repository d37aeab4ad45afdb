package dev.distlock.annotation;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.function.Supplier;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.callback.AsyncHold;
import dev.distlock.core.callback.BusyCallback;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * Locking for methods returning {@code Mono} or {@code Flux}, through the template's one
 * execution path: nothing happens when the method is called except capturing the call;
 * each subscription evaluates the key and runs
 * {@link LockTemplate#execute(LockRequest, dev.distlock.core.callback.LockCallback, BusyCallback, AsyncHold)}
 * on a bounded-elastic thread (acquiring may block), which assembles the method's
 * publisher with the lease current in {@link dev.distlock.core.LockContext} and hands the
 * hold to this class's {@link AsyncHold}: the publisher runs with the lease in the
 * Reactor context under {@code Lease.class}, and the lock is released when it completes,
 * fails or is cancelled, or when it is discarded unsubscribed (the subscriber cancelled
 * while the lock was being acquired). Kept apart from {@link DistributedLockInterceptor}
 * so that reactor-core stays optional.
 */
final class ReactiveLocking {

	private static final AsyncHold<Object> HOLD = (result, lease,
			completion) -> new HeldPublisher((Publisher<?>) result, lease, completion);

	private ReactiveLocking() {
	}

	static Object lock(LockAttribute operation, MethodInvocation invocation, Object target, @Nullable Object[] args,
			Supplier<LockTemplate> lockTemplate) {
		// one clone per subscription lets each one run the rest of the advice chain and
		// the method again
		Supplier<MethodInvocation> calls = (invocation instanceof ProxyMethodInvocation proxied)
				? proxied::invocableClone : () -> invocation;
		Flux<Object> locked = Flux
			.defer(() -> Mono.fromCallable(() -> run(operation, calls.get(), target, args, lockTemplate.get()))
				.subscribeOn(Schedulers.boundedElastic())
				// acquired after the subscriber cancelled: Reactor discards the value, we
				// release it
				.doOnDiscard(HeldPublisher.class, HeldPublisher::discard)
				.flatMapMany(Flux::from));
		return (operation.reactive() == LockAttribute.Reactive.MONO) ? Mono.fromDirect(locked) : locked;
	}

	private static Publisher<?> run(LockAttribute operation, MethodInvocation call, Object target,
			@Nullable Object[] args, LockTemplate template) throws Exception {
		LockRequest request = operation.request(target, args);
		BusyCallback<Object> busy = DistributedLockInterceptor.busy(operation, request, target, args);
		Object result;
		try {
			result = template.execute(request, (lease) -> call.proceed(), busy, HOLD);
		}
		catch (LockAcquisitionException ex) {
			// cancelling the subscription interrupts the waiting thread: hand the failure
			// on as a value, which Reactor discards quietly, instead of an error it would
			// log as dropped
			return Flux.error(ex);
		}
		catch (Exception | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new UndeclaredThrowableException(ex);
		}
		return (result != null) ? (Publisher<?>) result : Flux.empty();
	}

	/** The method's publisher, holding the lock until it terminates. */
	private static final class HeldPublisher implements Publisher<Object> {

		private final Publisher<?> source;

		private final Lease lease;

		private final AsyncHold.Completion completion;

		HeldPublisher(Publisher<?> source, Lease lease, AsyncHold.Completion completion) {
			this.source = source;
			this.lease = lease;
			this.completion = completion;
		}

		@Override
		public void subscribe(Subscriber<? super Object> subscriber) {
			if (this.source instanceof Mono<?> mono) {
				// a Mono's subscriber may cancel as soon as the value arrives: judge the
				// lease before handing it on
				Mono.from(mono)
					.contextWrite((context) -> context.put(Lease.class, this.lease))
					.flatMap((value) -> finish(null).thenReturn((Object) value))
					.switchIfEmpty(Mono.defer(() -> finish(null).then(Mono.empty())))
					.onErrorResume((error) -> finish(error).then(Mono.error(error)))
					.doOnCancel(this::discard)
					.subscribe(subscriber);
				return;
			}
			Flux.usingWhen(Mono.just(this),
					(held) -> Flux.from(this.source).contextWrite((context) -> context.put(Lease.class, this.lease)),
					(held) -> finish(null), (held, error) -> finish(error), (held) -> finish(null))
				.subscribe(subscriber);
		}

		/**
		 * Releases on a bounded-elastic thread (releasing may be a blocking round trip).
		 */
		private Mono<Void> finish(@Nullable Throwable failure) {
			return Mono.<Void>defer(() -> {
				Throwable outcome = this.completion.complete(failure);
				// a loss after success fails the publisher; after a failure it was added
				// to it as suppressed
				return (outcome != null && failure == null) ? Mono.error(outcome) : Mono.empty();
			}).subscribeOn(Schedulers.boundedElastic());
		}

		void discard() {
			Schedulers.boundedElastic().schedule(() -> this.completion.complete(null));
		}

	}

}
