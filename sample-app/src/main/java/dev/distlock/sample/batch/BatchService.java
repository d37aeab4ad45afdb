package dev.distlock.sample.batch;

import java.time.Duration;

import dev.distlock.core.LatchTemplate;

import org.springframework.stereotype.Service;

/**
 * A batch of parts that any instance may process, and a step that waits until all of them
 * are done, through distlock's {@link LatchTemplate}: starting the batch sets a latch to
 * the number of parts, each finished part counts it down, and the waiting step returns
 * when it reaches zero. The count lives in the lock backend, so the parts may be done by
 * other instances, and it survives the crash of the instance that started the batch.
 */
@Service
public class BatchService {

	private final LatchTemplate latches;

	BatchService(LatchTemplate latches) {
		this.latches = latches;
	}

	// tag::batch[]
	/**
	 * Starts a batch.
	 * @param batch the batch's id
	 * @param parts how many parts it has, at least 1
	 * @return {@code false} if a batch of that id is still running
	 */
	public boolean start(String batch, int parts) {
		return this.latches.trySetCount("batch:" + batch, parts);
	}

	/**
	 * Reports one part of the batch done, on any instance.
	 * @param batch the batch's id
	 */
	public void partDone(String batch) {
		this.latches.countDown("batch:" + batch);
	}

	/**
	 * Parts not done yet.
	 * @param batch the batch's id
	 * @return the count, 0 when every part is done (or no such batch runs)
	 */
	public long partsLeft(String batch) {
		return this.latches.count("batch:" + batch);
	}

	/**
	 * Waits until every part is done.
	 * @param batch the batch's id
	 * @param timeout the longest wait
	 * @return {@code true} if every part is done, {@code false} if the timeout passed
	 */
	public boolean awaitAllParts(String batch, Duration timeout) throws InterruptedException {
		return this.latches.await("batch:" + batch, timeout);
	}
	// end::batch[]

}
