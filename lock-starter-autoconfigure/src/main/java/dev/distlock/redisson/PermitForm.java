package dev.distlock.redisson;

import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.spi.LockAttempt;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RPermitExpirableSemaphore;

/**
 * SEMAPHORE on Redisson's {@code RPermitExpirableSemaphore}: each permit has its own id
 * and lease, renewed as Redisson's {@code updateLeaseTime} does. The semaphore is created
 * with the request's capacity when it does not exist (with an expiry, unlike Redisson's
 * {@code trySetPermits}); this form remembers the semaphores it created or was granted a
 * permit of, so that within half a fence retention it need not ask again.
 */
final class PermitForm implements RedissonLockForm {

	private static final int MAX_REMEMBERED_SEMAPHORES = 10_000;

	/**
	 * Semaphores created or granted from, with when ({@code System.nanoTime()}): each of
	 * those extended the semaphore to live at least the fence retention.
	 */
	private final Map<String, Long> sizedSemaphores = new ConcurrentHashMap<>();

	@Override
	public @Nullable RedissonHeldLock acquire(RedissonNode node, LockAttempt attempt, PendingAcquisition state,
			long retentionMillis) throws Exception {
		String name = RedissonLockKeys.of(attempt).lock();
		long leaseMillis = RedissonLockScripts.leaseMillis(attempt);
		size(node, attempt, state, name, retentionMillis);
		String permitId = RedissonNode.await(state.trackWait(RedissonNode
			.call(() -> semaphore(node, name).tryAcquireAsync(state.waitMillis(), leaseMillis, TimeUnit.MILLISECONDS))),
				state.deadline());
		if (permitId == null) {
			// ask again next time: the semaphore may have been deleted, and then it would
			// never grant a permit
			this.sizedSemaphores.remove(name);
			return null;
		}
		state.granted(permitId);
		// as for hash locks: restart the permit's lease with the token, counted from this
		// request
		attempt.markSent();
		Long token = RedissonNode.await(extend(node, attempt, permitId, leaseMillis, true, retentionMillis),
				state.deadline());
		remember(name);
		return RedissonHeldLock.withToken(attempt, state.ownerId(), permitId, token);
	}

	/**
	 * Creates the semaphore with the request's capacity unless it exists; skipped while
	 * it is known to exist.
	 */
	private void size(RedissonNode node, LockAttempt attempt, PendingAcquisition state, String name,
			long retentionMillis) throws Exception {
		Long known = this.sizedSemaphores.get(name);
		if (known != null && System.nanoTime() - known < TimeUnit.MILLISECONDS.toNanos(retentionMillis) / 2) {
			return;
		}
		RedissonNode.await(
				node.eval(RedissonLockScripts.SIZE_SEMAPHORE, List.of(name), String.valueOf(attempt.permits()),
						RedissonLockScripts.retention(retentionMillis, RedissonLockScripts.leaseMillis(attempt))),
				state.deadline());
		remember(name);
	}

	private void remember(String semaphore) {
		if (this.sizedSemaphores.size() >= MAX_REMEMBERED_SEMAPHORES) {
			this.sizedSemaphores.clear();
		}
		this.sizedSemaphores.put(semaphore, System.nanoTime());
	}

	@Override
	public CompletableFuture<Long> renew(RedissonNode node, RedissonHeldLock held, long leaseMillis,
			long retentionMillis) {
		return extend(node, held.attempt(), held.permit(), leaseMillis, false, retentionMillis);
	}

	/**
	 * Restarts a permit's lease while it is held, keeps the semaphore alive, optionally
	 * takes the next token. The permit's expiry is the client's clock plus the lease, as
	 * Redisson scores its permits.
	 * @return 0 if no longer held, else the token ({@code fence}) or 1
	 */
	private CompletableFuture<Long> extend(RedissonNode node, LockAttempt attempt, String permitId, long leaseMillis,
			boolean fence, long retentionMillis) {
		RedissonLockKeys names = RedissonLockKeys.of(attempt);
		List<Object> keys = fence ? List.of(names.permitTimeouts(), names.lock(), names.fence())
				: List.of(names.permitTimeouts(), names.lock());
		return node.eval(RedissonLockScripts.EXTEND_PERMIT, keys, HexFormat.of().parseHex(permitId),
				String.valueOf(System.currentTimeMillis()), String.valueOf(leaseMillis),
				RedissonLockScripts.retention(retentionMillis, leaseMillis));
	}

	@Override
	public CompletableFuture<Boolean> release(RedissonNode node, RedissonHeldLock held) {
		return release(node, held.attempt(), held.permit());
	}

	/**
	 * {@code tryRelease}: {@code false} when the permit already expired, nothing to give
	 * back.
	 */
	private static CompletableFuture<Boolean> release(RedissonNode node, LockAttempt attempt, String permitId) {
		return RedissonNode.call(() -> semaphore(node, RedissonLockKeys.of(attempt).lock()).tryReleaseAsync(permitId));
	}

	/**
	 * Cancels Redisson's waiting (it then releases a permit that reaches it after) and
	 * gives back a permit whose grant was answered. A permit whose reply never arrives
	 * cannot be named, and stays taken until its lease ends.
	 */
	@Override
	public void abandon(RedissonNode node, LockAttempt attempt, PendingAcquisition state) {
		long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RedissonLockScripts.leaseMillis(attempt));
		state.stop().whenComplete((reply, ex) -> {
			String permitId = (reply instanceof String id) ? id : state.permitId();
			if (permitId != null) {
				node.releaseLate(() -> release(node, attempt, permitId), 1, until, attempt);
			}
		});
	}

	private static RPermitExpirableSemaphore semaphore(RedissonNode node, String name) {
		return node.client().getPermitExpirableSemaphore(name);
	}

}
