package dev.distlock.zookeeper;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.core.support.WakeUpSignal;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * A provider's one watcher: ZooKeeper keeps a watcher once per path however often it is
 * set, so waiters register here by path instead, and a waiter that gave up leaves nothing
 * behind but a one-shot watch. An event without a path (a connection change) wakes every
 * waiter, so each re-reads its queue. A node's deletion is also recorded with the waiter
 * (see {@link Wait#deleted}), so a waiter whose only blocker was that node may take the
 * lock without reading the queue again.
 */
final class NodeWatcher implements Watcher {

	private final Map<String, Set<Wait>> waiting = new ConcurrentHashMap<>();

	void add(String path, Wait wait) {
		this.waiting.compute(path, (p, set) -> {
			Set<Wait> result = (set != null) ? set : ConcurrentHashMap.newKeySet();
			result.add(wait);
			return result;
		});
	}

	void remove(String path, Wait wait) {
		this.waiting.computeIfPresent(path, (p, set) -> {
			set.remove(wait);
			return set.isEmpty() ? null : set;
		});
	}

	void wakeAll() {
		this.waiting.values().forEach((set) -> set.forEach(Wait::signal));
	}

	@Override
	public void process(WatchedEvent event) {
		String path = event.getPath();
		if (event.getType() == Event.EventType.None || path == null) {
			wakeAll();
			return;
		}
		Set<Wait> waits = this.waiting.get(path);
		if (waits == null) {
			return;
		}
		boolean deleted = event.getType() == Event.EventType.NodeDeleted;
		for (Wait wait : waits) {
			if (deleted) {
				wait.deletedNodes.add(path);
			}
			wait.signal();
		}
	}

	/**
	 * One waiter's wake-up, and the watched nodes the server reported deleted since the
	 * waiter last {@linkplain #forget() forgot} them.
	 */
	static final class Wait {

		private final WakeUpSignal wakeup = new WakeUpSignal();

		private final Set<String> deletedNodes = ConcurrentHashMap.newKeySet();

		void signal() {
			this.wakeup.signal();
		}

		void await(long nanos) throws InterruptedException {
			this.wakeup.await(nanos);
		}

		/**
		 * Whether the server reported the node deleted: its deletion event came on this
		 * session, which was therefore alive when the node went.
		 * @param path the node
		 * @return whether its deletion was reported
		 */
		boolean deleted(String path) {
			return this.deletedNodes.contains(path);
		}

		void forget() {
			this.deletedNodes.clear();
		}

	}

}
