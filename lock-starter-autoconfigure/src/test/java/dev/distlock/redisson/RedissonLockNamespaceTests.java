package dev.distlock.redisson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each lock type has a namespace no user key can forge: MUTEX {@code X:rw} and READ/WRITE
 * {@code X} are separate locks (in one hash, the MUTEX's release would delete the
 * reader), whatever braces, colons or percent signs the keys hold, and every key of one
 * lock stays in one Redis Cluster slot.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedissonLockNamespaceTests {

	/** Keys a user value could produce that look like another lock's names. */
	private static final List<String> TRICKY_KEYS = List.of("X", "X:rw", "X:fair", "X:semaphore", "X}:redisson:rw",
			"{X}", "{X}:redisson:rw", "X%7D", "X}", "X%", "%", "}", "{", "a{b}c", "X:redisson:mutex");

	private static final List<LockType> FAMILIES = List.of(LockType.MUTEX, LockType.FAIR, LockType.WRITE,
			LockType.SEMAPHORE);

	private final String prefix = "rns:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final List<RedissonClient> clients = new ArrayList<>();

	private final List<LockTemplate> templates = new ArrayList<>();

	@AfterEach
	void close() {
		this.templates.forEach(LockTemplate::close);
		RedissonClient admin = RedissonClients.shared();
		admin.getKeys().deleteByPattern("*" + this.prefix + "*");
		RedissonClients.shutdown(admin);
		this.clients.forEach(RedissonClients::shutdown);
	}

	private LockTemplate process() {
		RedissonClient client = RedissonClients.shared();
		this.clients.add(client);
		RedissonLockProvider provider = new RedissonLockProvider(client);
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix(this.prefix), List.of());
		this.templates.add(template);
		return template;
	}

	private static Optional<Lease> tryLock(LockTemplate template, String key, LockType type) {
		return template.tryAcquire(
				LockRequest.builder(key).type(type).lease(Duration.ofSeconds(30)).waitTime(Duration.ZERO).build());
	}

	@Test
	void releasingAMutexOnXrwNeverDeletesTheReaderOfX() {
		LockTemplate mutexHolder = process();
		LockTemplate reader = process();
		LockTemplate writer = process();
		Lease mutex = tryLock(mutexHolder, "doc:7:rw", LockType.MUTEX).orElseThrow();
		Lease read = tryLock(reader, "doc:7", LockType.READ)
			.orElseThrow(() -> new AssertionError("READ doc:7 is not the MUTEX doc:7:rw"));
		mutex.release();
		assertThat(tryLock(writer, "doc:7", LockType.WRITE))
			.as("a WRITE on doc:7 while its reader holds (the MUTEX release must not have deleted the reader)")
			.isEmpty();
		read.release();
		tryLock(writer, "doc:7", LockType.WRITE).orElseThrow().release();
	}

	@Test
	void aReaderOfXDoesNotBlockAMutexOnXrw() {
		LockTemplate reader = process();
		LockTemplate mutexHolder = process();
		Lease read = tryLock(reader, "doc:8", LockType.READ).orElseThrow();
		tryLock(mutexHolder, "doc:8:rw", LockType.MUTEX)
			.orElseThrow(() -> new AssertionError("MUTEX doc:8:rw refused because READ doc:8 is held"))
			.release();
		assertThat(tryLock(mutexHolder, "doc:8", LockType.WRITE)).as("the reader still holds").isEmpty();
		read.release();
	}

	@Test
	void everyTrickyKeyOfEveryTypeIsItsOwnLock() {
		LockTemplate holder = process();
		LockTemplate other = process();
		List<Lease> held = new ArrayList<>();
		for (String key : TRICKY_KEYS) {
			for (LockType type : FAMILIES) {
				String name = this.prefix + key;
				held.add(tryLock(holder, key, type)
					.orElseThrow(() -> new AssertionError(type + " '" + name + "' collides with a lock held before")));
			}
		}
		for (String key : TRICKY_KEYS) {
			assertThat(tryLock(other, key, LockType.MUTEX)).as("MUTEX '%s' is held", key).isEmpty();
		}
		held.forEach(Lease::release);
	}

	@Test
	void namesOfDistinctLocksNeverCoincideAndEachLockStaysInOneSlot() {
		Map<String, String> owners = new HashMap<>();
		for (String key : TRICKY_KEYS) {
			String fullKey = "lock:" + key;
			for (LockType type : FAMILIES) {
				RedissonLockKeys keys = RedissonLockKeys.of(fullKey, type);
				List<String> names = new ArrayList<>(keys.lockState());
				names.add(keys.readHolds("client:-1") + ":1");
				for (String name : names) {
					String owner = type + " '" + fullKey + "'";
					String previous = owners.put(name, owner);
					assertThat(previous).as("%s of %s is also a name of %s", name, owner, previous).isIn(null, owner);
				}
				names.add(keys.fence());
				int slot = SlotHash.getSlot(keys.lock());
				assertThat(names).as("one slot for every key of %s '%s'", type, fullKey)
					.allSatisfy((name) -> assertThat(SlotHash.getSlot(name)).as(name).isEqualTo(slot));
			}
		}
	}

}
