package dev.distlock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.distlock.core.LockType;

/**
 * Runs the annotated method of a Spring bean under a distributed lock: the lock is
 * acquired before the method runs and released when it returns or throws (for a
 * {@code CompletionStage}/{@code CompletableFuture} result, when that completes). Inside
 * the method {@link dev.distlock.core.LockContext#currentLease()} is the lease, with its
 * fencing token. A method returning Reactor's {@code Mono} or {@code Flux} locks per
 * subscription instead: the lock is acquired when the result is subscribed to (on a
 * bounded-elastic thread, since acquiring may block), held until it completes, fails or
 * is cancelled, and the lease is in the Reactor context under {@code Lease.class} (and in
 * {@code LockContext} while the method assembles its publisher); a busy lock is an error
 * signal, an empty result under {@link LockFailureAction#SKIP}, or the fallback's
 * publisher.
 * <p>
 * The lock key is {@code distlock.key-prefix} + {@link #name()} + {@code ":"} + the value
 * of {@link #key()}; with only one of them set, just that one; with neither, the target
 * class's fully qualified name + {@code "."} + the method name. Everything that can be
 * checked is checked when the bean is created (SpEL syntax, variables that are no
 * parameters, durations, permits, fallback method, provider and type), so a mistake fails
 * the application's startup with a {@link dev.distlock.core.LockConfigurationException}
 * naming the method and the offending value.
 * <p>
 * Applied by a Spring AOP proxy, so it works on public (or protected/package-visible)
 * non-final, non-static methods called through the bean reference; a call from inside the
 * same object ({@code this.method()}) is not intercepted. By default the advisor runs
 * just outside {@code @Transactional}, so the lock is released after the commit.
 *
 * <pre class="code">
 * &#064;DistributedLock(name = "order", key = "#order.id", lease = "30s", waitTime = "5s")
 * public void ship(Order order) { ... }
 * </pre>
 *
 * @since 0.1.0
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

	/**
	 * SpEL expression giving the variable part of the key, evaluated for every call.
	 * Parameters by name ({@code #order.id}; needs {@code javac -parameters}, which
	 * Spring Boot's build plugins set) or by position ({@code #p0}, {@code #a0});
	 * {@code #root.method}, {@code #root.methodName}, {@code #root.args},
	 * {@code #root.target}, {@code #root.targetClass}; beans as {@code @beanName}; string
	 * literals in single quotes ({@code "'nightly'"}). The value is turned into a string
	 * with {@code String.valueOf}; {@code null} or a blank string raises
	 * {@link dev.distlock.core.LockKeyException} and the method does not run. Empty means
	 * no variable part. A value that is a {@code Collection} or an array locks each
	 * element as a key of its own (with the name), all together or none, in sorted order
	 * ({@code key = "#transfer.accounts()"}); the lease then has a fencing token per key
	 * ({@link dev.distlock.core.Lease#fencingToken(String)}).
	 * @return the key expression
	 */
	String key() default "";

	/**
	 * Literal namespace placed before the key with a {@code ":"}, e.g. {@code "order"}
	 * for {@code order:42}. Not an expression. Empty means none.
	 * @return the lock name
	 */
	String name() default "";

	/**
	 * How long the backend holds the lock if it is not released first: a duration such as
	 * {@code "30s"}, {@code "500ms"}, {@code "5m"}, {@code "2h"}, {@code "1d"}, an
	 * ISO-8601 duration such as {@code "PT1M"}, or a plain number of milliseconds;
	 * {@code ${...}} placeholders are resolved at startup. Must be positive. Empty means
	 * {@code distlock.default-lease}, and when that is unset too the lock is held until
	 * the method returns, with the watchdog renewing a short backend lease
	 * ({@code distlock.watchdog.lease}) meanwhile. With a fixed lease the method should
	 * finish well within it: when it runs out the lease is lost and
	 * {@link dev.distlock.core.LockLostException} is raised when the method returns.
	 * @return the lease duration
	 */
	String lease() default "";

	/**
	 * How long to wait for a busy lock, in the same formats as {@link #lease()}.
	 * {@code "0"} tries once. Must not be negative. Empty means
	 * {@code distlock.default-wait}. (Named {@code waitTime} because an annotation
	 * element {@code wait()} would clash with {@code Object.wait()}.)
	 * @return the wait duration
	 */
	String waitTime() default "";

	/**
	 * The kind of lock. {@link LockType#MUTEX} (default) is exclusive and reentrant for
	 * the holding thread; {@link LockType#FAIR} hands the lock over in arrival order;
	 * {@link LockType#READ} and {@link LockType#WRITE} share one lock per key;
	 * {@link LockType#SEMAPHORE} admits {@link #permits()} holders. The backend must
	 * support the type (checked at startup).
	 * @return the lock type
	 */
	LockType type() default LockType.MUTEX;

	/**
	 * How many holders a {@link LockType#SEMAPHORE} admits at once; at least 1. Only
	 * SEMAPHORE may set it to anything but 1. Every method locking the same semaphore key
	 * must use the same count.
	 * @return the permit count
	 */
	int permits() default 1;

	/**
	 * Name of the backend to lock on ({@code local}, {@code redis}, {@code redisson},
	 * {@code redisson-quorum}, {@code jdbc}, {@code zookeeper}, {@code etcd}) when
	 * several are configured; it must be one of them (checked at startup). Empty means
	 * {@code distlock.provider}, or the only backend there is.
	 * @return the provider name
	 */
	String provider() default "";

	/**
	 * What to do when the lock stays busy for the whole wait time:
	 * {@link LockFailureAction#THROW} (default) raises
	 * {@link dev.distlock.core.LockAcquisitionException}; {@link LockFailureAction#SKIP}
	 * returns an empty result without running the method. Backend failures always throw.
	 * Cannot be combined with {@link #fallbackMethod()}.
	 * @return the failure action
	 */
	LockFailureAction onFailure() default LockFailureAction.THROW;

	/**
	 * Name of a method of the same bean to call instead when the lock stays busy for the
	 * whole wait time: same parameter types, a return type assignable to this method's,
	 * any visibility, may be static. It is called on the target object (not through the
	 * proxy) with the same arguments, without the lock. Backend failures do not call it;
	 * they raise {@link dev.distlock.core.LockAcquisitionException}. Empty means none.
	 * @return the fallback method's name
	 */
	String fallbackMethod() default "";

	/**
	 * Keeps the lock taken until at least this long after it was acquired, even when the
	 * method returns sooner: a duration string like {@link #lease()}. What a
	 * once-per-period {@code @Scheduled} job needs, so that an instance whose scheduler
	 * fires a little later finds the lock still taken (ShedLock's
	 * {@code lockAtLeastFor}). The lock is kept by the backend, so it also outlives a
	 * crash of the holder. Must not be negative nor longer than a fixed {@link #lease()}
	 * (checked at startup). Empty means none.
	 * @return the shortest time the lock stays taken
	 * @since 0.2.0
	 * @see dev.distlock.core.LockRequest.Builder#holdAtLeast(java.time.Duration)
	 */
	String holdAtLeast() default "";

}
