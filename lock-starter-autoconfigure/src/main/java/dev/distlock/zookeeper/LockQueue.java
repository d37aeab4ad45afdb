package dev.distlock.zookeeper;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.distlock.core.LockType;
import org.jspecify.annotations.Nullable;

/**
 * The queue rules, applied to a snapshot of one lock's children: nodes are ordered by their sequence number (creation
 * order) and a node's place decides whether it holds the lock and which nodes it must watch to learn when that may
 * have changed. Only nodes that block the waiter are watched, one per waiter, so a release wakes one waiter, not the
 * herd.
 * <ul>
 * <li>MUTEX, FAIR, WRITE: the first node holds; a waiter watches its predecessor.</li>
 * <li>READ: holds when no WRITE node precedes it; a waiter watches the nearest preceding WRITE node.</li>
 * <li>SEMAPHORE: the first {@code permits} nodes hold. The first waiter (exactly {@code permits} nodes ahead)
 * watches every holder; later waiters watch their predecessor, which announces its grant by touching its data, so
 * each waiter moves on to watching the holders once it is first.</li>
 * </ul>
 */
final class LockQueue {

	/** Length of the prefix Curator's protected mode puts before a node name: {@code _c_<uuid>-}. */
	private static final int PROTECTED_PREFIX_LENGTH = 40;

	private LockQueue() {
	}

	/**
	 * Where a node stands.
	 *
	 * @param granted whether the node holds the lock
	 * @param watch names of the nodes to watch while waiting
	 * @param confirm whether the snapshot must be re-read after the watches are set, because the watched node's grant
	 * (not only its deletion) changes this node's position
	 * @param announce whether a newly granted node must touch its data to wake a successor that watches it
	 */
	record Position(boolean granted, List<String> watch, boolean confirm, boolean announce) {

		static final Position GRANTED = new Position(true, List.of(), false, false);

	}

	/** One parsed child: its name, type marker and sequence number. */
	record Node(String name, String marker, long sequence) {
	}

	/**
	 * The position of a node in a snapshot of its lock's children.
	 * @param children the children's names
	 * @param own the node's name
	 * @param type the node's lock type
	 * @param permits the permits of a SEMAPHORE
	 * @return the position, or {@code null} if the node is not among the children (it was deleted)
	 */
	static @Nullable Position position(List<String> children, String own, LockType type, int permits) {
		List<Node> nodes = sorted(children);
		int index = -1;
		for (int i = 0; i < nodes.size(); i++) {
			if (nodes.get(i).name().equals(own)) {
				index = i;
				break;
			}
		}
		if (index < 0) {
			return null;
		}
		return switch (type) {
			case MUTEX, FAIR, WRITE -> (index == 0) ? Position.GRANTED : waitFor(nodes.get(index - 1));
			case READ -> read(nodes, index);
			case SEMAPHORE -> semaphore(nodes, index, permits);
		};
	}

	private static Position waitFor(Node node) {
		return new Position(false, List.of(node.name()), false, false);
	}

	private static Position read(List<Node> nodes, int index) {
		for (int i = index - 1; i >= 0; i--) {
			if (nodes.get(i).marker().equals(LockNodePaths.marker(LockType.WRITE))) {
				return waitFor(nodes.get(i));
			}
		}
		return Position.GRANTED;
	}

	private static Position semaphore(List<Node> nodes, int index, int permits) {
		if (permits == 1) {
			return (index == 0) ? Position.GRANTED : waitFor(nodes.get(index - 1));
		}
		if (index < permits) {
			return new Position(true, List.of(), false, index < nodes.size() - 1);
		}
		if (index == permits) {
			List<String> holders = new ArrayList<>(permits);
			for (int i = 0; i < permits; i++) {
				holders.add(nodes.get(i).name());
			}
			return new Position(false, holders, false, false);
		}
		return new Position(false, List.of(nodes.get(index - 1).name()), true, false);
	}

	/**
	 * Parses and sorts the children by sequence; names that are not queue nodes are left out.
	 * @param children the children's names
	 * @return the queue nodes in sequence order
	 */
	static List<Node> sorted(List<String> children) {
		List<Node> nodes = new ArrayList<>(children.size());
		for (String child : children) {
			Node node = parse(child);
			if (node != null) {
				nodes.add(node);
			}
		}
		nodes.sort(Comparator.comparingLong(Node::sequence));
		return nodes;
	}

	static @Nullable Node parse(String name) {
		String bare = (name.startsWith("_c_") && name.length() > PROTECTED_PREFIX_LENGTH)
				? name.substring(PROTECTED_PREFIX_LENGTH) : name;
		int dash = bare.indexOf('-');
		if (dash <= 0 || dash == bare.length() - 1) {
			return null;
		}
		try {
			// ZooKeeper appends %010d of a signed int, so the suffix may carry its own minus sign after overflow
			return new Node(name, bare.substring(0, dash), Long.parseLong(bare.substring(dash + 1)));
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

}
