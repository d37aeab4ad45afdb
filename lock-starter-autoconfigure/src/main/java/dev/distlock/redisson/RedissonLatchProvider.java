package dev.distlock.redisson;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.spi.LatchProvider;
import dev.distlock.core.spi.LatchWaiter;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Countdown latches through Redisson's {@link RCountDownLatch}, named {@code redisson}:
 * its count-down script deletes the latch at zero and publishes on its channel, and its
 * {@code await} waits on that channel. The latch object is named {@code <name>:latch};
 * its count is set together with its expiry by one {@code SET NX PX} (a script, since
 * Redisson's {@code trySetCount} sets no expiry), so a latch never exists without one.
 *
 * @since 0.2.0
 */
public final class RedissonLatchProvider implements LatchProvider {

	/**
	 * What {@code RCountDownLatch.trySetCount} stores (the count as a number), with its
	 * expiry in the same command (SET NX PX).
	 */
	private static final String SET_WITH_EXPIRY = """
			if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
				return 1
			end
			return 0
			""";

	private final RedissonClient client;

	/**
	 * Creates a provider.
	 * @param client the Redisson client (the caller shuts it down)
	 */
	public RedissonLatchProvider(RedissonClient client) {
		this.client = client;
	}

	@Override
	public String name() {
		return "redisson";
	}

	@Override
	public boolean trySetCount(String latch, long count, Duration expiry) {
		Long set = this.client.getScript(StringCodec.INSTANCE)
			.eval(name(latch), RScript.Mode.READ_WRITE, SET_WITH_EXPIRY, RScript.ReturnType.LONG, List.of(name(latch)),
					Long.toString(count), Long.toString(Math.max(1, expiry.toMillis())));
		return set != null && set == 1;
	}

	@Override
	public void countDown(String latch) {
		this.client.getCountDownLatch(name(latch)).countDown();
	}

	@Override
	public long count(String latch) {
		return Math.max(0, this.client.getCountDownLatch(name(latch)).getCount());
	}

	/**
	 * Waits with Redisson's own {@link RCountDownLatch#await(long, TimeUnit)}, again
	 * while the waiter's deadline has not passed (Redisson's timer may end a wait a
	 * little early).
	 */
	@Override
	public boolean await(String latch, LatchWaiter waiter) throws InterruptedException {
		RCountDownLatch countDownLatch = this.client.getCountDownLatch(name(latch));
		long left = waiter.remaining().toNanos();
		do {
			if (countDownLatch.await((left + 999_999) / 1_000_000, TimeUnit.MILLISECONDS)) {
				return true;
			}
			left = waiter.remaining().toNanos();
		}
		while (left > 0);
		return false;
	}

	private static String name(String latch) {
		return latch + ":latch";
	}

}
