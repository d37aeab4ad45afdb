package dev.distlock.zookeeper;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import dev.distlock.core.LockType;
import org.jspecify.annotations.Nullable;

/**
 * The queue rules, applied to a snapshot of one lock's children: nodes are ordered by
 * creation, and a node's place decides whether it holds the lock and which nodes it
 * watches, only those that block it, so a release wakes one waiter, not the herd. MUTEX,
 * FAIR and WRITE: the first node holds, a waiter watches its predecessor. READ: holds
 * when no WRITE node precedes it, a waiter watches the nearest preceding WRITE node.
 * SEMAPHORE: the first {@code permits} nodes hold; the first waiter watches every holder,
 * later ones their predecessor, which announces its own grant by touching its data.
 * <p>
 * Creation order is the sequence numbers' order until the lock node's signed 32-bit child
 * counter runs out (ZooKeeper 3.9 then repeats {@code 2147483647}, older servers wrap to
 * negative suffixes); a snapshot that shows either ({@link #sequenceExhausted}) is
 * ordered by the nodes' creation zxids instead ({@link #inCreationOrder}).
 */
final class LockQueue {

	/**
	 * Length of the prefix Curator's protected mode puts before a node name:
	 * {@code _c_<uuid>-}.
	 */
	private static final int PROTECTED_PREFIX_LENGTH = 40;

	private LockQueue() {
	}

	/**
	 * Where a node stands.
	 *
	 * @param granted whether the node holds the lock
	 * @param watch names of the nodes to watch while waiting
	 * @param confirm whether the snapshot must be re-read after the watches are set,
	 * because the watched node's grant (not only its deletion) changes this node's
	 * position
	 * @param announce whether a newly granted node must touch its data to wake a
	 * successor that watches it
	 * @param grantedWhenGone whether the node holds the lock as soon as a watched node is
	 * gone, with no need to read the queue again: in the snapshot only that node blocks
	 * it, and every node created later sorts after it
	 */
	record Position(boolean granted, List<String> watch, boolean confirm, boolean announce, boolean grantedWhenGone) {

		static final Position GRANTED = new Position(true, List.of(), false, false, false);

	}

	/** One parsed child: its name, type marker and sequence number. */
	record Node(String name, String marker, long sequence) {
	}

	/**
	 * The position of a node in a snapshot of its lock's children.
	 * @param nodes the children in creation order ({@link #sorted}, or
	 * {@link #inCreationOrder} where the sequence ran out)
	 * @param own the node's name
	 * @param type the node's lock type
	 * @param permits the permits of a SEMAPHORE
	 * @return the position, or {@code null} if the node is not among the children (it was
	 * deleted)
	 */
	static @Nullable Position position(List<Node> nodes, String own, LockType type, int permits) {
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
			case MUTEX, FAIR, WRITE -> (index == 0) ? Position.GRANTED : waitFor(nodes.get(index - 1), index == 1);
			case READ -> read(nodes, index);
			case SEMAPHORE -> semaphore(nodes, index, permits);
		};
	}

	private static Position waitFor(Node node, boolean onlyBlocker) {
		return new Position(false, List.of(node.name()), false, false, onlyBlocker);
	}

	private static Position read(List<Node> nodes, int index) {
		String write = LockNodePaths.marker(LockType.WRITE);
		for (int i = index - 1; i >= 0; i--) {
			if (nodes.get(i).marker().equals(write)) {
				boolean onlyWrite = true;
				for (int j = i - 1; j >= 0 && onlyWrite; j--) {
					onlyWrite = !nodes.get(j).marker().equals(write);
				}
				return waitFor(nodes.get(i), onlyWrite);
			}
		}
		return Position.GRANTED;
	}

	private static Position semaphore(List<Node> nodes, int index, int permits) {
		if (permits == 1) {
			return (index == 0) ? Position.GRANTED : waitFor(nodes.get(index - 1), index == 1);
		}
		if (index < permits) {
			return new Position(true, List.of(), false, index < nodes.size() - 1, false);
		}
		if (index == permits) {
			List<String> holders = new ArrayList<>(permits);
			for (int i = 0; i < permits; i++) {
				holders.add(nodes.get(i).name());
			}
			// a semaphore's new holder may have to announce its grant: read the queue
			// again
			return new Position(false, holders, false, false, false);
		}
		return new Position(false, List.of(nodes.get(index - 1).name()), true, false, false);
	}

	/**
	 * Parses and sorts the children by sequence; names that are not queue nodes are left
	 * out.
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

	/**
	 * Whether the sequence numbers of a snapshot may no longer follow creation order:
	 * some node carries the last suffix a 32-bit counter gives ({@code 2147483647}, which
	 * ZooKeeper 3.9 repeats once the counter ran out) or a negative one (older servers
	 * wrapped).
	 * @param nodes the parsed children
	 * @return whether to order by creation zxid instead
	 */
	static boolean sequenceExhausted(List<Node> nodes) {
		for (Node node : nodes) {
			if (node.sequence() < 0 || node.sequence() >= Integer.MAX_VALUE) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Orders nodes by the zxid of the transaction that created them, which increases
	 * strictly across the ensemble.
	 * @param nodes the parsed children
	 * @param creationZxids the czxid of each node by name; a node without one was deleted
	 * meanwhile and is left out
	 * @return the nodes still present, in creation order
	 */
	static List<Node> inCreationOrder(List<Node> nodes, Map<String, Long> creationZxids) {
		List<Node> present = new ArrayList<>(nodes.size());
		for (Node node : nodes) {
			if (creationZxids.containsKey(node.name())) {
				present.add(node);
			}
		}
		present.sort(Comparator.comparingLong((node) -> creationZxids.get(node.name())));
		return present;
	}

	static @Nullable Node parse(String name) {
		String bare = (name.startsWith("_c_") && name.length() > PROTECTED_PREFIX_LENGTH)
				? name.substring(PROTECTED_PREFIX_LENGTH) : name;
		int dash = bare.indexOf('-');
		if (dash <= 0 || dash == bare.length() - 1) {
			return null;
		}
		try {
			// ZooKeeper appends %010d of a signed int, so an old server's suffix carries
			// a minus sign after overflow
			return new Node(name, bare.substring(0, dash), Long.parseLong(bare.substring(dash + 1)));
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

}
