package dev.distlock.test;

import java.util.EnumSet;
import java.util.Set;

import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockProvider;

/**
 * A provider under another name, optionally with fewer lock types, delegating to a real
 * one (usually a {@code LocalLockProvider}): stands for a second backend in tests of
 * provider selection and of types a backend lacks.
 */
public final class NamedLockProvider extends ForwardingLockProvider {

	private final String name;

	private final Set<LockType> types;

	public NamedLockProvider(String name, LockProvider delegate) {
		this(name, delegate, delegate.supportedTypes());
	}

	public NamedLockProvider(String name, LockProvider delegate, Set<LockType> types) {
		super(delegate);
		this.name = name;
		this.types = Set.copyOf(EnumSet.copyOf(types));
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public Set<LockType> supportedTypes() {
		return this.types;
	}

}
