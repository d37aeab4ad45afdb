package dev.distlock.sample.accounts;

import java.time.Duration;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /accounts/{id}}; {@code POST /accounts/{id}/deposits?amount=10}
 * ({@code &pauseMillis=8000} stalls the holder past its lease between read and write).
 */
@RestController
@RequestMapping("/accounts/{id}")
class AccountController {

	private final AccountService accounts;

	AccountController(AccountService accounts) {
		this.accounts = accounts;
	}

	@GetMapping
	ResponseEntity<AccountService.Account> account(@PathVariable String id) {
		return ResponseEntity.of(this.accounts.find(id));
	}

	@PostMapping("/deposits")
	AccountService.Deposit deposit(@PathVariable String id, @RequestParam long amount,
			@RequestParam(defaultValue = "0") long pauseMillis) throws InterruptedException {
		return this.accounts.deposit(id, amount, Duration.ofMillis(pauseMillis));
	}

}
