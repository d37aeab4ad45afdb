package dev.distlock.leader;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only on the instance that leads
 * ({@link LeaderCandidate#isLeader()}, judged at the call); elsewhere the call is skipped
 * and returns {@code null} (nothing for {@code void}). Made for {@code @Scheduled} jobs
 * that every instance schedules and one should run. While the method runs,
 * {@link dev.distlock.core.LockContext#currentLease()} is the leader's lease, so fenced
 * writes ({@code dev.distlock.fencing}) carry the term's token and are refused if this
 * instance has lost leadership and a newer leader has written.
 * <p>
 * Needs {@code distlock.leader.enabled=true}: without a candidate the call fails with
 * {@link dev.distlock.core.LockConfigurationException} rather than run on every instance.
 * Methods returning a primitive other than {@code void} fail at startup (a skipped call
 * has nothing to return).
 *
 * @since 0.1.0
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface LeaderOnly {

}
