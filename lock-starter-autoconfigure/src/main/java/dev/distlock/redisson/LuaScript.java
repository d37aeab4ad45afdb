package dev.distlock.redisson;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.LongCodec;
import org.redisson.client.protocol.RedisCommands;
import org.redisson.command.CommandAsyncExecutor;

/**
 * One of this package's Lua scripts, read once from its {@code .lua} resource with the
 * {@code redis} provider's {@code prelude.lua} in front of it: the fencing rule
 * ({@code next_token}: counter + 1, never below the server clock) and {@code extend_to}
 * are that provider's, so both Redis backends number and keep their locks the same way
 * and the rule is written once. Keys go in {@code KEYS}, everything else in {@code ARGV}:
 * nothing is spliced into the text. Redisson sends it by EVALSHA and loads it on NOSCRIPT
 * (its {@code useScriptCache}, on by default), so a script crosses the wire once per
 * server. Arguments go as bytes: a {@code byte[]} as it is (Redisson stores permit ids as
 * raw bytes), anything else as its UTF-8 text.
 */
final class LuaScript {

	private static final String PRELUDE = "/dev/distlock/redis/prelude.lua";

	private final String name;

	private final String text;

	private LuaScript(String name, String text) {
		this.name = name;
		this.text = text;
	}

	static LuaScript load(String name) {
		return new LuaScript(name, read(PRELUDE) + read(name));
	}

	private static String read(String name) {
		try (InputStream in = LuaScript.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + name + " is missing beside " + LuaScript.class);
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Lua script " + name, ex);
		}
	}

	/**
	 * Runs the script on the node that owns the first key, answering an integer or nil.
	 * With the client's command executor (a {@code Redisson} client) the call goes
	 * straight to it, as Redisson's own locks send their scripts: the arguments as they
	 * are (Redisson's encoder writes a {@code byte[]} as it is and anything else as its
	 * UTF-8 text), without the {@code RScript} layer's per-call object, key mapping and
	 * copies of encoded buffers. Otherwise through {@link RScript}, with the same bytes.
	 * Both retry as the client is configured to.
	 * @param client the client
	 * @param executor the client's command executor, {@code null} to go through
	 * {@link RScript}
	 * @param keys the keys, all in one hash slot
	 * @param args the arguments: {@code byte[]} or text
	 * @return the reply
	 */
	CompletableFuture<Long> evalLong(RedissonClient client, @Nullable CommandAsyncExecutor executor, List<Object> keys,
			Object... args) {
		if (executor != null) {
			return executor
				.<Long, Long>evalWriteAsync((String) keys.get(0), LongCodec.INSTANCE, RedisCommands.EVAL_LONG,
						this.text, keys, args)
				.toCompletableFuture();
		}
		Object[] encoded = new Object[args.length];
		for (int i = 0; i < args.length; i++) {
			encoded[i] = (args[i] instanceof byte[]) ? args[i] : args[i].toString().getBytes(StandardCharsets.UTF_8);
		}
		RScript script = client.getScript(ByteArrayCodec.INSTANCE);
		return script
			.<Long>evalAsync((String) keys.get(0), RScript.Mode.READ_WRITE, this.text, RScript.ReturnType.LONG, keys,
					encoded)
			.toCompletableFuture();
	}

	@Override
	public String toString() {
		return this.name;
	}

}
