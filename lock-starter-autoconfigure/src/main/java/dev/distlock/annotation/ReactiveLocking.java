package dev.distlock.annotation;

import java.util.function.Supplier;

import dev.distlock.core.Lease;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.util.Assert;

/**
 * Locking for methods returning {@code Mono} or {@code Flux}: nothing happens when the method is called except
 * capturing the call; each subscription evaluates the key, acquires the lock on a bounded-elastic thread (acquiring
 * may block), assembles the method's publisher with the lease current in {@link dev.distlock.core.LockContext}, runs
 * it with the lease in the Reactor context under {@code Lease.class}, and releases when it completes, fails or is
 * cancelled. A lease acquired for a subscription that was cancelled meanwhile is released at once. Kept apart from
 * {@link DistributedLockInterceptor} so that reactor-core stays optional.
 */
final class ReactiveLocking {

	private ReactiveLocking() {
	}

	static Object lock(LockOperation operation, MethodInvocation invocation, Object target, @Nullable Object[] args,
			Supplier<LockTemplate> lockTemplate) {
		// one clone per subscription lets each one run the rest of the advice chain and the method again
		Supplier<MethodInvocation> calls = (invocation instanceof ProxyMethodInvocation proxied)
				? proxied::invocableClone : () -> invocation;
		if (operation.reactive() == LockOperation.Reactive.MONO) {
			return Mono.defer(() -> {
				Mono<Held> held = acquire(operation, target, args, lockTemplate.get());
				return Mono.usingWhen(held, (h) -> h.runMono(operation, calls.get(), target, args), Held::release,
						(h, error) -> h.release(), Held::release);
			});
		}
		return Flux.defer(() -> {
			Mono<Held> held = acquire(operation, target, args, lockTemplate.get());
			return Flux.usingWhen(held, (h) -> h.runFlux(operation, calls.get(), target, args), Held::release,
					(h, error) -> h.release(), Held::release);
		});
	}

	private static Mono<Held> acquire(LockOperation operation, Object target, @Nullable Object[] args,
			LockTemplate template) {
		return Mono.fromCallable(() -> {
			LockRequest request = operation.request(operation.key(target, args));
			Lease lease;
			try {
				lease = template.tryAcquire(request).orElse(null);
			}
			catch (LockAcquisitionException ex) {
				if (ex.getCause() instanceof InterruptedException) {
					// cancelling the subscription interrupts the waiting thread: hand the failure on as a value,
					// which Reactor discards quietly, instead of an error it would log as dropped
					return new Held(template, request, null, ex);
				}
				throw ex;
			}
			if (lease != null) {
				// the elastic thread goes back to its pool; it must not re-enter this lock for someone else
				template.detach(lease);
			}
			return new Held(template, request, lease, null);
		})
			.subscribeOn(Schedulers.boundedElastic())
			// acquired after the subscriber cancelled: Reactor discards the value, we release it
			.doOnDiscard(Held.class, Held::releaseNow);
	}

	/** The outcome of one subscription's acquisition. */
	private record Held(LockTemplate template, LockRequest request, @Nullable Lease lease,
			@Nullable LockAcquisitionException failure) {

		Flux<?> runFlux(LockOperation operation, MethodInvocation call, Object target, @Nullable Object[] args) {
			Lease held = this.lease;
			if (held == null) {
				return Flux.from(busy(operation, target, args));
			}
			// a lease lost while the publisher ran turns its completion into LockLostException
			return Flux.from(assemble(held, call))
				.onErrorMap(this::withLoss)
				.concatWith(Mono.defer(this::lossOrEmpty))
				.contextWrite((context) -> context.put(Lease.class, held));
		}

		Mono<?> runMono(LockOperation operation, MethodInvocation call, Object target, @Nullable Object[] args) {
			Lease held = this.lease;
			if (held == null) {
				return Mono.from(busy(operation, target, args));
			}
			return Mono.from(assemble(held, call))
				.onErrorMap(this::withLoss)
				.flatMap((value) -> lossOrEmpty().then(Mono.just(value)))
				.switchIfEmpty(Mono.defer(this::lossOrEmpty))
				.contextWrite((context) -> context.put(Lease.class, held));
		}

		/** Calls the method, with the lease current in LockContext while it assembles its publisher. */
		private Publisher<?> assemble(Lease held, MethodInvocation call) {
			Object result;
			try {
				result = this.template.runHolding(held, () -> DistributedLockInterceptor.proceed(call));
			}
			catch (Throwable ex) {
				return Flux.error(DistributedLockInterceptor.unwrap(ex));
			}
			return (result != null) ? (Publisher<?>) result : Flux.empty();
		}

		private Throwable withLoss(Throwable error) {
			LockLostException lost = DistributedLockInterceptor.lostOrNull(this.template, held());
			if (lost != null) {
				error.addSuppressed(lost);
			}
			return error;
		}

		private <T> Mono<T> lossOrEmpty() {
			LockLostException lost = DistributedLockInterceptor.lostOrNull(this.template, held());
			return (lost != null) ? Mono.error(lost) : Mono.empty();
		}

		private Lease held() {
			Lease held = this.lease;
			Assert.state(held != null, "No lease");
			return held;
		}

		private Publisher<?> busy(LockOperation operation, Object target, @Nullable Object[] args) {
			if (this.failure != null) {
				return Flux.error(this.failure);
			}
			if (operation.fallback() != null) {
				return Flux.defer(() -> {
					try {
						Object result = operation.whenBusy(target, args);
						return (result != null) ? (Publisher<?>) result : Flux.empty();
					}
					catch (Throwable ex) {
						return Flux.error(ex);
					}
				});
			}
			if (operation.onFailure() == LockFailureAction.SKIP) {
				return Flux.empty();
			}
			return Flux.error(DistributedLockInterceptor.busyException(operation, this.request, this.template));
		}

		/** Releases on a bounded-elastic thread: releasing may be a blocking round trip. */
		Mono<Void> release() {
			return (this.lease != null) ? Mono.<Void>fromRunnable(this::releaseNow).subscribeOn(Schedulers.boundedElastic())
					: Mono.empty();
		}

		void releaseNow() {
			if (this.lease != null) {
				this.lease.release();
			}
		}

	}

}
