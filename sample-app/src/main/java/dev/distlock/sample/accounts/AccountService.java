package dev.distlock.sample.accounts;

import java.time.Duration;
import java.util.Optional;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.core.LockContext;
import dev.distlock.sample.InstanceName;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/**
 * Deposits into accounts, protected by the lock and by its fencing token. The lock alone
 * is not enough when a holder can stall past its lease (a long GC pause, a frozen VM, a
 * slow call): the backend then hands the lock to the next caller while the stalled one,
 * unaware, goes on to write a balance computed from what it read before the stall. So
 * every write carries the lease's fencing token, and the account row refuses a token not
 * greater than the last one it accepted:
 * {@code UPDATE account SET balance = ?, last_token = ? WHERE id = ? AND last_token < ?}.
 * The stalled holder's write then changes no row and is reported as
 * {@link StaleLockTokenException}, and the successor's deposit stands.
 */
@Service
public class AccountService {

	private final JdbcClient jdbc;

	private final InstanceName instance;

	AccountService(JdbcClient jdbc, InstanceName instance) {
		this.jdbc = jdbc;
		this.instance = instance;
	}

	/**
	 * Adds to an account's balance, opening the account on its first deposit.
	 * @param accountId the account
	 * @param amount what to add
	 * @param pause how long to stall between reading the balance and writing it, to play
	 * the paused holder (zero normally)
	 * @return the deposit made
	 * @throws StaleLockTokenException if a holder with a newer token wrote the account
	 * meanwhile
	 */
	@DistributedLock(name = "account", key = "#accountId", lease = "${sample.account.lease:5s}", waitTime = "15s")
	public Deposit deposit(String accountId, long amount, Duration pause) throws InterruptedException {
		long token = LockContext.currentLease().fencingToken();
		Account before = find(accountId).orElseGet(() -> open(accountId));
		Thread.sleep(pause.toMillis());
		long balance = before.balance() + amount;
		int written = this.jdbc.sql("UPDATE account SET balance = ?, last_token = ? WHERE id = ? AND last_token < ?")
			.params(balance, token, accountId, token)
			.update();
		if (written == 0) {
			throw new StaleLockTokenException(accountId, token, find(accountId).map(Account::lastToken).orElse(0L));
		}
		return new Deposit(accountId, amount, balance, this.instance.toString(), token);
	}

	/**
	 * An account as stored; read without a lock.
	 * @param accountId the account
	 * @return the account, empty when it has had no deposit yet
	 */
	public Optional<Account> find(String accountId) {
		return this.jdbc.sql("SELECT id, balance, last_token FROM account WHERE id = ?")
			.param(accountId)
			.query((rs, row) -> new Account(rs.getString(1), rs.getLong(2), rs.getLong(3)))
			.optional();
	}

	private Account open(String accountId) {
		// under the account's lock, so nobody else inserts it at the same time
		this.jdbc.sql("INSERT INTO account (id, balance, last_token) VALUES (?, 0, 0)").param(accountId).update();
		return new Account(accountId, 0, 0);
	}

	/**
	 * An account.
	 *
	 * @param id its id
	 * @param balance its balance
	 * @param lastToken the fencing token of the last write it accepted
	 */
	public record Account(String id, long balance, long lastToken) {
	}

	/**
	 * A deposit made.
	 *
	 * @param accountId the account
	 * @param amount what was added
	 * @param balance the balance afterwards
	 * @param instance the instance that wrote it
	 * @param lockToken the fencing token it was written with
	 */
	public record Deposit(String accountId, long amount, long balance, String instance, long lockToken) {
	}

}
