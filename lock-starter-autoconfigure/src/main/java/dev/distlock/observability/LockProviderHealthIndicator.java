package dev.distlock.observability;

import java.time.Duration;

import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of one lock backend: UP when a
 * {@link LockProvider#checkHealth(dev.distlock.core.spi.LockAttempt) health round trip}
 * succeeds, DOWN with the error when it fails. Works for every backend through the SPI;
 * how quickly a stopped server is noticed depends on the client's connect and command
 * timeouts.
 *
 * @since 0.1.0
 */
public class LockProviderHealthIndicator extends AbstractHealthIndicator {

	private final LockProvider provider;

	private final boolean defaultProvider;

	private final LockProviderProbe probe;

	/**
	 * Creates an indicator for one of the template's providers.
	 * @param template the template whose key prefix the probe uses
	 * @param provider the backend to check
	 */
	public LockProviderHealthIndicator(LockTemplate template, LockProvider provider) {
		super("Lock provider '" + provider.name() + "' health check failed");
		this.provider = provider;
		this.defaultProvider = template.defaultProvider() == provider;
		this.probe = new LockProviderProbe(template.settings().keyPrefix());
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) throws Exception {
		builder.withDetail("provider", this.provider.name()).withDetail("default", this.defaultProvider);
		long start = System.nanoTime();
		this.probe.check(this.provider);
		builder.up().withDetail("responseTime", Duration.ofNanos(System.nanoTime() - start).toMillis() + "ms");
	}

}
