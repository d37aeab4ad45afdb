package dev.distlock.zookeeper;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.core.spi.WakeUpSignal;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * A provider's one watcher: ZooKeeper keeps a watcher once per path however often it is
 * set, so waiters register here by path instead, and a waiter that gave up leaves nothing
 * behind but a one-shot watch. An event without a path (a connection change) wakes every
 * waiter, so each re-reads its queue.
 */
final class NodeWatcher implements Watcher {

	private final Map<String, Set<WakeUpSignal>> waiting = new ConcurrentHashMap<>();

	void add(String path, WakeUpSignal wakeup) {
		this.waiting.compute(path, (p, set) -> {
			Set<WakeUpSignal> result = (set != null) ? set : ConcurrentHashMap.newKeySet();
			result.add(wakeup);
			return result;
		});
	}

	void remove(String path, WakeUpSignal wakeup) {
		this.waiting.computeIfPresent(path, (p, set) -> {
			set.remove(wakeup);
			return set.isEmpty() ? null : set;
		});
	}

	void wakeAll() {
		this.waiting.values().forEach((set) -> set.forEach(WakeUpSignal::signal));
	}

	@Override
	public void process(WatchedEvent event) {
		String path = event.getPath();
		if (event.getType() == Event.EventType.None || path == null) {
			wakeAll();
			return;
		}
		Set<WakeUpSignal> wakeups = this.waiting.get(path);
		if (wakeups != null) {
			wakeups.forEach(WakeUpSignal::signal);
		}
	}

}
