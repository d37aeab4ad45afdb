package dev.distlock.redisson;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy in front of a Redis server that can hold back the server's replies, as a
 * slow network would: a grant then reaches the client well after Redis started its lease.
 * Requests pass at once; each reply chunk is delivered {@link #delayReplies(Duration) the
 * delay} after it arrived, in order. Test-only: one thread per direction and connection,
 * closed with the proxy.
 */
final class DelayingProxy implements AutoCloseable {

	private static final byte[] END = new byte[0];

	private final ServerSocket server;

	private final InetSocketAddress target;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private volatile long replyDelayNanos;

	private DelayingProxy(ServerSocket server, InetSocketAddress target) {
		this.server = server;
		this.target = target;
	}

	/**
	 * Starts a proxy on a free loopback port.
	 * @param redis the server, e.g. {@code redis://127.0.0.1:6379}
	 * @return the running proxy
	 */
	static DelayingProxy start(URI redis) throws IOException {
		ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		DelayingProxy proxy = new DelayingProxy(server, new InetSocketAddress(redis.getHost(), redis.getPort()));
		daemon("proxy-accept", proxy::acceptLoop);
		return proxy;
	}

	/** The proxy's address, for a Redisson configuration. */
	String address() {
		return "redis://127.0.0.1:" + this.server.getLocalPort();
	}

	/** Holds back every reply from now on by {@code delay}. */
	void delayReplies(Duration delay) {
		this.replyDelayNanos = delay.toNanos();
	}

	private void acceptLoop() {
		while (!this.server.isClosed()) {
			try {
				Socket client = this.server.accept();
				Socket upstream = new Socket();
				upstream.connect(this.target, 1000);
				client.setTcpNoDelay(true);
				upstream.setTcpNoDelay(true);
				this.sockets.add(client);
				this.sockets.add(upstream);
				daemon("proxy-request", () -> pump(client, upstream));
				BlockingQueue<Chunk> replies = new LinkedBlockingQueue<>();
				daemon("proxy-reply-in", () -> read(upstream, replies));
				daemon("proxy-reply-out", () -> deliver(replies, client));
			}
			catch (IOException ex) {
				// closed, or the server refused: the client sees the connection fail
			}
		}
	}

	private static void pump(Socket from, Socket to) {
		byte[] buffer = new byte[16 * 1024];
		try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
			for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
				out.write(buffer, 0, n);
				out.flush();
			}
		}
		catch (IOException ex) {
			// a side closed: the other side closes too
		}
		closeQuietly(from, to);
	}

	private void read(Socket from, BlockingQueue<Chunk> chunks) {
		byte[] buffer = new byte[16 * 1024];
		try (InputStream in = from.getInputStream()) {
			for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
				chunks.add(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime() + this.replyDelayNanos));
			}
		}
		catch (IOException ex) {
			// closed
		}
		chunks.add(new Chunk(END, System.nanoTime()));
	}

	private static void deliver(BlockingQueue<Chunk> chunks, Socket to) {
		try (OutputStream out = to.getOutputStream()) {
			for (Chunk chunk = chunks.take(); chunk.bytes != END; chunk = chunks.take()) {
				long wait = chunk.dueNanos - System.nanoTime();
				if (wait > 0) {
					TimeUnit.NANOSECONDS.sleep(wait);
				}
				out.write(chunk.bytes);
				out.flush();
			}
		}
		catch (IOException | InterruptedException ex) {
			// closed
		}
		closeQuietly(to);
	}

	private static void daemon(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
	}

	private static void closeQuietly(Socket... sockets) {
		for (Socket socket : sockets) {
			try {
				socket.close();
			}
			catch (IOException ex) {
				// already closed
			}
		}
	}

	@Override
	public void close() throws IOException {
		this.server.close();
		this.sockets.forEach(DelayingProxy::closeQuietly);
	}

	private record Chunk(byte[] bytes, long dueNanos) {
	}

}
