package dev.distlock.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP forwarder between clients and a backend server that the test controls, as a
 * network would misbehave: {@link #delay(Duration) delay} every chunk in both directions,
 * {@link #cut() cut} the link (bytes stay queued, as TCP keeps retransmitting through a
 * partition, and flow when it {@link #heal() heals}), {@link #reset() reset} every
 * connection (RST to both sides), and {@link #retarget(int) point} new connections at
 * another server. Plain sockets, two threads per direction and connection; test-only.
 */
final class TcpProxy implements AutoCloseable {

	private static final byte[] END = new byte[0];

	private final ServerSocket server;

	private final List<Link> links = new CopyOnWriteArrayList<>();

	private final Object gate = new Object();

	private volatile int targetPort;

	private volatile long delayNanos;

	private volatile boolean cut;

	private volatile long connectDelayNanos;

	private final AtomicInteger connected = new AtomicInteger();

	private TcpProxy(ServerSocket server, int targetPort) {
		this.server = server;
		this.targetPort = targetPort;
	}

	/**
	 * Starts a proxy on a free loopback port.
	 * @param targetPort the server's port on 127.0.0.1
	 * @return the running proxy
	 */
	static TcpProxy start(int targetPort) throws IOException {
		ServerSocket server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
		TcpProxy proxy = new TcpProxy(server, targetPort);
		daemon("proxy-accept-" + server.getLocalPort(), proxy::acceptLoop);
		return proxy;
	}

	int port() {
		return this.server.getLocalPort();
	}

	/** Delays every chunk by this much from now on ({@link Duration#ZERO} for none). */
	void delay(Duration delay) {
		this.delayNanos = delay.toNanos();
	}

	/**
	 * Holds every new connection this long before it reaches the server, as a slow
	 * connect would ({@link Duration#ZERO} for none).
	 */
	void connectDelay(Duration delay) {
		this.connectDelayNanos = delay.toNanos();
	}

	/** How many connections have reached the server through the proxy so far. */
	int connected() {
		return this.connected.get();
	}

	/**
	 * Stops forwarding: bytes queue up in the proxy, connections stay open, new ones are
	 * accepted but stall.
	 */
	void cut() {
		this.cut = true;
	}

	/** Forwards again, queued bytes first. */
	void heal() {
		synchronized (this.gate) {
			this.cut = false;
			this.gate.notifyAll();
		}
	}

	/** Resets every open connection on both sides (RST), dropping what is queued. */
	void reset() {
		for (Link link : this.links) {
			link.reset();
		}
		this.links.clear();
	}

	/** Connects new connections to another port from now on. */
	void retarget(int port) {
		this.targetPort = port;
	}

	private void acceptLoop() {
		while (!this.server.isClosed()) {
			Socket client;
			try {
				client = this.server.accept();
			}
			catch (IOException ex) {
				return;
			}
			daemon("proxy-connect", () -> connect(client));
		}
	}

	private void connect(Socket client) {
		try {
			awaitOpen();
			long connectDelay = this.connectDelayNanos;
			if (connectDelay > 0) {
				TimeUnit.NANOSECONDS.sleep(connectDelay);
			}
			Socket upstream = new Socket();
			upstream.connect(new InetSocketAddress("127.0.0.1", this.targetPort), 1000);
			client.setTcpNoDelay(true);
			upstream.setTcpNoDelay(true);
			Link link = new Link(client, upstream);
			this.links.add(link);
			link.start();
			this.connected.incrementAndGet();
		}
		catch (IOException | InterruptedException ex) {
			// refused (server down): the client sees its connection reset
			Link.resetQuietly(client);
		}
	}

	private void awaitOpen() throws InterruptedException {
		synchronized (this.gate) {
			while (this.cut) {
				this.gate.wait();
			}
		}
	}

	@Override
	public void close() throws IOException {
		heal();
		this.server.close();
		reset();
	}

	private static void daemon(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
	}

	/** One proxied connection. */
	private final class Link {

		private final Socket client;

		private final Socket upstream;

		Link(Socket client, Socket upstream) {
			this.client = client;
			this.upstream = upstream;
		}

		void start() {
			direction(this.client, this.upstream, "up");
			direction(this.upstream, this.client, "down");
		}

		private void direction(Socket from, Socket to, String name) {
			BlockingQueue<Chunk> chunks = new LinkedBlockingQueue<>();
			daemon("proxy-read-" + name, () -> read(from, chunks));
			daemon("proxy-write-" + name, () -> write(chunks, to));
		}

		private void read(Socket from, BlockingQueue<Chunk> chunks) {
			byte[] buffer = new byte[16 * 1024];
			try {
				InputStream in = from.getInputStream();
				for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
					chunks.add(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime() + TcpProxy.this.delayNanos));
				}
			}
			catch (IOException ex) {
				// closed or reset
			}
			chunks.add(new Chunk(END, System.nanoTime()));
		}

		private void write(BlockingQueue<Chunk> chunks, Socket to) {
			try {
				OutputStream out = to.getOutputStream();
				for (Chunk chunk = chunks.take(); chunk.bytes() != END; chunk = chunks.take()) {
					awaitOpen();
					long wait = chunk.dueNanos() - System.nanoTime();
					if (wait > 0) {
						TimeUnit.NANOSECONDS.sleep(wait);
					}
					out.write(chunk.bytes());
					out.flush();
				}
				// the other side closed: pass the close on once everything before it is
				// delivered
				to.shutdownOutput();
			}
			catch (IOException | InterruptedException ex) {
				reset();
			}
		}

		void reset() {
			resetQuietly(this.client);
			resetQuietly(this.upstream);
		}

		static void resetQuietly(Socket socket) {
			try {
				socket.setSoLinger(true, 0);
				socket.close();
			}
			catch (IOException ex) {
				// already closed
			}
		}

	}

	private record Chunk(byte[] bytes, long dueNanos) {
	}

}
