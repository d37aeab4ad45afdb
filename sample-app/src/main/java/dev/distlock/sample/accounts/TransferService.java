package dev.distlock.sample.accounts;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.core.Lease;
import dev.distlock.core.LockContext;
import dev.distlock.fencing.JdbcFencing;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Transfers between two accounts under both accounts' locks, taken together: the key
 * expression gives a list, and distlock locks each element as a key of its own
 * ({@code account:A}, {@code account:B}), all or none, in sorted order. Two transfers in
 * opposite directions therefore never hold one account each while waiting for the other
 * (the deadlock that locking {@code from} and then {@code to} invites), and a transfer
 * excludes every deposit into either account, since deposits lock the same keys. Each
 * account row is written with the fencing token of its own key.
 */
@Service
public class TransferService {

	private final JdbcClient jdbc;

	private final JdbcFencing fencing;

	TransferService(JdbcClient jdbc, JdbcFencing fencing) {
		this.jdbc = jdbc;
		this.fencing = fencing;
	}

	// tag::transfer[]
	/**
	 * Moves an amount from one account to another.
	 * @param from the account debited
	 * @param to the account credited, not {@code from}
	 * @param amount how much, at least 1
	 * @return the transfer made
	 */
	@DistributedLock(name = "account", key = "{#from, #to}", waitTime = "15s")
	@Transactional
	public Transfer transfer(String from, String to, long amount) {
		if (from.equals(to) || amount < 1) {
			throw new IllegalArgumentException("a transfer needs two accounts and an amount of at least 1");
		}
		Lease lease = LockContext.currentLease(); // one lease, a fencing token per key
		long fromBalance = balance(from) - amount;
		long toBalance = balance(to) + amount;
		this.fencing.update("account")
			.set("balance", fromBalance)
			.where("id", from)
			.execute(lease.fencingToken("account:" + from));
		this.fencing.update("account")
			.set("balance", toBalance)
			.where("id", to)
			.execute(lease.fencingToken("account:" + to));
		return new Transfer(from, to, amount, fromBalance, toBalance);
	}
	// end::transfer[]

	private long balance(String account) {
		return this.jdbc.sql("SELECT balance FROM account WHERE id = ?")
			.param(account)
			.query(Long.class)
			.optional()
			.orElseThrow(() -> new IllegalArgumentException("no account " + account));
	}

	/**
	 * A transfer made.
	 *
	 * @param from the account debited
	 * @param to the account credited
	 * @param amount how much
	 * @param fromBalance the debited account's balance afterwards
	 * @param toBalance the credited account's balance afterwards
	 */
	public record Transfer(String from, String to, long amount, long fromBalance, long toBalance) {
	}

}
