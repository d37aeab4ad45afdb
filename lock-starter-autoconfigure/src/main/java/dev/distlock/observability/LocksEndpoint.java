package dev.distlock.observability;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.distlock.core.LeaseSnapshot;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockProvider;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code distlockLocks} actuator endpoint ({@code /actuator/distlockLocks}): the
 * leases this instance holds now and the status of each backend. Its default access is
 * read-only; the delete operation, which releases a stuck lease of this instance by its
 * owner token, is available only with
 * {@code management.endpoint.distlocklocks.access=unrestricted}.
 *
 * @since 0.1.0
 */
@Endpoint(id = LocksEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class LocksEndpoint {

	/** The endpoint's id. */
	public static final String ID = "distlockLocks";

	private final LockTemplate template;

	private final LockProviderProbe probe;

	/**
	 * Creates the endpoint.
	 * @param template the template whose leases and providers it shows
	 */
	public LocksEndpoint(LockTemplate template) {
		this.template = template;
		this.probe = new LockProviderProbe(template.settings().keyPrefix());
	}

	/**
	 * The leases held now and every backend's status: one {@link LockProvider#checkHealth
	 * health check} each, a ping-class request that writes no lock on the built-in
	 * backends (a read must not cost a lock write, a fencing counter or a ZooKeeper node
	 * per call).
	 * @return the report
	 */
	@ReadOperation
	public LocksDescriptor locks() {
		Map<String, ProviderDescriptor> providers = new LinkedHashMap<>();
		for (LockProvider provider : this.template.providers().values()) {
			providers.put(provider.name(), describe(provider));
		}
		return new LocksDescriptor(this.template.activeLeases(), providers);
	}

	/**
	 * Releases a lease of this instance, whoever holds it, as
	 * {@link LockTemplate#forceRelease(String)} does. The holder's work goes on and sees
	 * its lease as lost.
	 * @param owner the lease's owner token, as the read operation shows it
	 * @return whether a lease was found and released
	 */
	@DeleteOperation
	public ReleaseDescriptor release(@Selector String owner) {
		return new ReleaseDescriptor(owner, this.template.forceRelease(owner));
	}

	private ProviderDescriptor describe(LockProvider provider) {
		boolean isDefault = this.template.defaultProvider() == provider;
		try {
			this.probe.check(provider);
			return new ProviderDescriptor(isDefault, provider.supportedTypes(), "UP", null);
		}
		catch (Exception ex) {
			return new ProviderDescriptor(isDefault, provider.supportedTypes(), "DOWN", ex.toString());
		}
	}

	/**
	 * What the read operation returns.
	 *
	 * @param leases the leases this instance holds now
	 * @param providers each backend's status, by name
	 */
	public record LocksDescriptor(List<LeaseSnapshot> leases,
			Map<String, ProviderDescriptor> providers) implements OperationResponseBody {
	}

	/**
	 * One backend's status.
	 *
	 * @param defaultProvider whether locks that name no provider use it
	 * @param types the lock types it supports
	 * @param status {@code UP} or {@code DOWN}, from one health round trip
	 * @param error why it is down, or {@code null}
	 */
	public record ProviderDescriptor(boolean defaultProvider, Set<LockType> types, String status,
			@Nullable String error) {
	}

	/**
	 * What the delete operation returns.
	 *
	 * @param owner the owner token asked for
	 * @param released whether a lease of that owner was found and released
	 */
	public record ReleaseDescriptor(String owner, boolean released) implements OperationResponseBody {
	}

}
