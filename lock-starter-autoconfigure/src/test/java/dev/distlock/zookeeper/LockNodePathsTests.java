package dev.distlock.zookeeper;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockType;
import org.apache.zookeeper.common.PathUtils;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Keys become exactly one valid path segment under the base path, and distinct keys never
 * share one.
 */
class LockNodePathsTests {

	private final LockNodePaths paths = new LockNodePaths("/distlock");

	static List<String> awkwardKeys() {
		String longKey = "k".repeat(1000); // below LockRequest.MAX_KEY_LENGTH, far above
											// a segment
		List<String> keys = new ArrayList<>(List.of("/", "//", "..", ".", "../..", "a/../b", "../../zookeeper",
				"zookeeper", "\u0000", "a\u0000b", "\n", "\u007f", "\u0085", "%", "%2F", "~", "%u", "\uD800", "?",
				"\uD83D\uDE00", "é", "e\u0301", " ", "lock:order:42", "LOCK:order:42", ".hidden", "a.b", "a%2Eb",
				longKey, longKey.substring(1) + "x", longKey + "a", longKey + "b", "%".repeat(1000), "/".repeat(1000)));
		return keys;
	}

	@Test
	void everyKeyIsOneValidSegmentDirectlyUnderTheBasePath() {
		for (String key : awkwardKeys()) {
			for (LockType type : LockType.values()) {
				String path = this.paths.lockPath(key, type);
				assertThatNoException().as("valid ZooKeeper path for key %s", printable(key))
					.isThrownBy(() -> PathUtils.validatePath(path));
				String segment = LockNodePaths.encodeKey(key);
				assertThat(path).isEqualTo("/distlock/" + segment + "/" + LockNodePaths.family(type));
				assertThat(segment).doesNotContain("/").isNotIn(".", "..", "");
				assertThat(segment.length()).isLessThanOrEqualTo(LockNodePaths.MAX_SEGMENT_LENGTH + 65);
			}
		}
	}

	@Test
	void distinctKeysNeverShareASegment() {
		Set<String> segments = new HashSet<>();
		List<String> keys = awkwardKeys();
		for (String key : keys) {
			assertThat(segments.add(LockNodePaths.encodeKey(key))).as("unique segment for %s", printable(key)).isTrue();
		}
		assertThat(segments).hasSize(keys.size());
	}

	@Test
	void keysDifferingOnlyAfterTheCutOffStayDistinct() {
		String common = "x".repeat(LockNodePaths.MAX_SEGMENT_LENGTH * 3);
		String a = LockNodePaths.encodeKey(common + "a");
		String b = LockNodePaths.encodeKey(common + "b");
		assertThat(a).isNotEqualTo(b).contains("~");
		assertThat(a.substring(0, LockNodePaths.KEPT_PREFIX_LENGTH))
			.isEqualTo(b.substring(0, LockNodePaths.KEPT_PREFIX_LENGTH));
	}

	@Test
	void hashedSegmentNeverEqualsAPlainOne() {
		String hashed = LockNodePaths.encodeKey("y".repeat(500));
		// '~' is always escaped, so no key that encodes short can produce the hashed form
		assertThat(LockNodePaths.encodeKey(hashed)).isNotEqualTo(hashed).contains("%7E");
	}

	@Test
	void readableKeysStayReadable() {
		assertThat(LockNodePaths.encodeKey("lock:order-42_x.y")).isEqualTo("lock:order-42_x.y");
		assertThat(LockNodePaths.encodeKey("a/b")).isEqualTo("a%2Fb");
		assertThat(LockNodePaths.encodeKey("..")).isEqualTo("%2E.");
	}

	@Test
	void readAndWriteShareOneQueueAndOtherTypesHaveTheirOwn() {
		assertThat(this.paths.lockPath("k", LockType.READ)).isEqualTo(this.paths.lockPath("k", LockType.WRITE));
		Set<String> others = new HashSet<>();
		for (LockType type : List.of(LockType.MUTEX, LockType.FAIR, LockType.WRITE, LockType.SEMAPHORE)) {
			assertThat(others.add(this.paths.lockPath("k", type))).isTrue();
		}
	}

	@Test
	void invalidBasePathsAreRefused() {
		for (String base : List.of("", "distlock", "/distlock/", "/", "/zookeeper", "/zookeeper/locks", "/a//b",
				"/a/../b")) {
			assertThatExceptionOfType(LockConfigurationException.class).as("base path '%s'", base)
				.isThrownBy(() -> new LockNodePaths(base))
				.withMessageContaining("base-path");
		}
	}

	@Test
	void queueNodeNamesParseWithAndWithoutProtection() {
		assertThat(LockQueue.parse("_c_0e1f8a8e-64d2-4cb3-8f3c-2d1b9e0f6a11-write-0000000042"))
			.isEqualTo(new LockQueue.Node("_c_0e1f8a8e-64d2-4cb3-8f3c-2d1b9e0f6a11-write-0000000042", "write", 42));
		assertThat(LockQueue.parse("read-0000000007").sequence()).isEqualTo(7);
		assertThat(LockQueue.parse("permit--2147483648").sequence()).isEqualTo(-2147483648L);
		assertThat(LockQueue.parse("junk")).isNull();
		assertThat(LockQueue.parse("lock-abc")).isNull();
	}

	@Test
	void queueRulesGrantAndWatchOnlyTheBlockingNode() {
		List<LockQueue.Node> children = LockQueue.sorted(List.of("write-0000000003", "read-0000000001",
				"read-0000000002", "write-0000000004", "read-0000000005"));
		assertThat(LockQueue.position(children, "read-0000000002", LockType.READ, 1).granted()).isTrue();
		assertThat(LockQueue.position(children, "write-0000000003", LockType.WRITE, 1).watch())
			.containsExactly("read-0000000002");
		assertThat(LockQueue.position(children, "read-0000000005", LockType.READ, 1).watch())
			.containsExactly("write-0000000004");
		assertThat(LockQueue.position(children, "gone-0000000009", LockType.READ, 1)).isNull();
		List<LockQueue.Node> permits = LockQueue
			.sorted(List.of("permit-0000000001", "permit-0000000002", "permit-0000000003", "permit-0000000004"));
		assertThat(LockQueue.position(permits, "permit-0000000002", LockType.SEMAPHORE, 2).announce()).isTrue();
		assertThat(LockQueue.position(permits, "permit-0000000003", LockType.SEMAPHORE, 2).watch())
			.containsExactly("permit-0000000001", "permit-0000000002");
		LockQueue.Position last = LockQueue.position(permits, "permit-0000000004", LockType.SEMAPHORE, 2);
		assertThat(last.watch()).containsExactly("permit-0000000003");
		assertThat(last.confirm()).isTrue();
	}

	private static String printable(String key) {
		String shown = (key.length() > 40) ? key.substring(0, 40) + "...(" + key.length() + ")" : key;
		StringBuilder out = new StringBuilder();
		shown.chars().forEach((c) -> out.append((c < 0x20 || c > 0x7e) ? String.format("\\u%04x", c) : (char) c));
		return out.toString();
	}

}
