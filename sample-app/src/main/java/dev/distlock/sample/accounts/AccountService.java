package dev.distlock.sample.accounts;

import java.time.Duration;
import java.util.Optional;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.core.LockContext;
import dev.distlock.fencing.JdbcFencing;
import dev.distlock.fencing.StaleFencingTokenException;
import dev.distlock.sample.InstanceName;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/**
 * Deposits into accounts, protected by the lock and by its fencing token. The lock alone
 * is not enough when a holder can stall past its lease (a long GC pause, a frozen VM, a
 * slow call): the backend then hands the lock to the next caller while the stalled one,
 * unaware, goes on to write a balance computed from what it read before the stall. So
 * every write goes through distlock's {@link JdbcFencing}: the account row stores the
 * highest token that wrote it, a write passes when {@code fencing_token <= :token} (equal
 * passes, so one lease may write twice) and stores its token; a row that recorded a
 * greater token refuses it with {@link StaleFencingTokenException}, and the successor's
 * deposit stands.
 */
@Service
public class AccountService {

	private final JdbcClient jdbc;

	private final JdbcFencing fencing;

	private final InstanceName instance;

	AccountService(JdbcClient jdbc, JdbcFencing fencing, InstanceName instance) {
		this.jdbc = jdbc;
		this.fencing = fencing;
		this.instance = instance;
	}

	// tag::deposit[]
	/**
	 * Adds to an account's balance, opening the account on its first deposit.
	 * @param accountId the account
	 * @param amount what to add
	 * @param pause how long to stall between reading the balance and writing it, to play
	 * the paused holder (zero normally)
	 * @return the deposit made
	 * @throws StaleFencingTokenException if a holder with a newer token wrote the account
	 * meanwhile
	 */
	@DistributedLock(name = "account", key = "#accountId", lease = "${sample.account.lease}", waitTime = "15s")
	public Deposit deposit(String accountId, long amount, Duration pause) throws InterruptedException {
		Account before = find(accountId).orElseGet(() -> open(accountId));
		Thread.sleep(pause.toMillis());
		long balance = before.balance() + amount;
		// UPDATE account SET balance = ?, fencing_token = :token
		// WHERE id = ? AND (fencing_token IS NULL OR fencing_token <= :token)
		this.fencing.update("account").set("balance", balance).where("id", accountId).execute();
		return new Deposit(accountId, amount, balance, this.instance.toString(),
				LockContext.currentLease().fencingToken());
	}
	// end::deposit[]

	/**
	 * An account as stored; read without a lock.
	 * @param accountId the account
	 * @return the account, empty when it has had no deposit yet
	 */
	public Optional<Account> find(String accountId) {
		return this.jdbc.sql("SELECT id, balance, fencing_token FROM account WHERE id = ?")
			.param(accountId)
			.query((rs, row) -> new Account(rs.getString(1), rs.getLong(2), rs.getLong(3)))
			.optional();
	}

	/**
	 * Opens an account with a balance, or sets the balance of an existing one; for the
	 * page's demos. Not fenced: call it when nobody else writes the account.
	 * @param accountId the account
	 * @param balance its balance
	 */
	public void reset(String accountId, long balance) {
		if (this.jdbc.sql("UPDATE account SET balance = ? WHERE id = ?").params(balance, accountId).update() == 0) {
			this.jdbc.sql("INSERT INTO account (id, balance) VALUES (?, ?)").params(accountId, balance).update();
		}
	}

	private Account open(String accountId) {
		// under the account's lock, so nobody else inserts it at the same time
		this.jdbc.sql("INSERT INTO account (id, balance) VALUES (?, 0)").param(accountId).update();
		return new Account(accountId, 0, 0);
	}

	/**
	 * An account.
	 *
	 * @param id its id
	 * @param balance its balance
	 * @param fencingToken the highest fencing token that wrote it (0 before any fenced
	 * write)
	 */
	public record Account(String id, long balance, long fencingToken) {
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
