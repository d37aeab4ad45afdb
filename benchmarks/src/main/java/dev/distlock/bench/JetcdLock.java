package dev.distlock.bench;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;

/**
 * {@code jetcd-lock}: etcd's own lock service through jetcd
 * ({@link Lock#lock(ByteSequence, long)} with a lease, then
 * {@link Lock#unlock(ByteSequence)}), the raw ceiling of the etcd backend. The lock
 * service keys a holder by its lease, so each benchmark thread has an etcd lease of its
 * own ({@link BenchConfig#LEASE}), kept alive by jetcd's keep-alive stream; not
 * re-entrant.
 */
final class JetcdLock implements Subject {

	private final EtcdServer server;

	private final Client client;

	private final String root;

	private final ThreadLocal<Long> leases = new ThreadLocal<>();

	private final java.util.List<CloseableClient> keepAlives = new java.util.concurrent.CopyOnWriteArrayList<>();

	JetcdLock(BenchConfig config) throws Exception {
		this.server = EtcdServer.start();
		this.client = Client.builder().endpoints(this.server.endpoints().split(",")).build();
		this.root = "/bench-" + config.runId() + "/";
	}

	@Override
	public Hold lock(String key) throws Exception {
		ByteSequence owned = this.client.getLockClient()
			.lock(ByteSequence.from(this.root + key, StandardCharsets.UTF_8), lease())
			.get(BenchConfig.WAIT.toMillis(), TimeUnit.MILLISECONDS)
			.getKey();
		return () -> this.client.getLockClient().unlock(owned).get(BenchConfig.WAIT.toMillis(), TimeUnit.MILLISECONDS);
	}

	private long lease() throws Exception {
		Long lease = this.leases.get();
		if (lease == null) {
			lease = this.client.getLeaseClient()
				.grant(BenchConfig.LEASE.toSeconds())
				.get(BenchConfig.WAIT.toMillis(), TimeUnit.MILLISECONDS)
				.getID();
			this.keepAlives.add(this.client.getLeaseClient().keepAlive(lease, new Ignored()));
			this.leases.set(lease);
		}
		return lease;
	}

	@Override
	public boolean reentrant() {
		return false;
	}

	@Override
	public void close() throws Exception {
		this.keepAlives.forEach(CloseableClient::close);
		this.client.close();
		this.server.close();
	}

	/** The keep-alive stream's answers: nothing to do with them. */
	private static final class Ignored implements StreamObserver<LeaseKeepAliveResponse> {

		@Override
		public void onNext(LeaseKeepAliveResponse value) {
		}

		@Override
		public void onError(Throwable failure) {
		}

		@Override
		public void onCompleted() {
		}

	}

}
