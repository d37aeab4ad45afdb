package com.example.shipping;

import java.time.Duration;

import dev.distlock.test.LockRecorder;
import dev.distlock.test.autoconfigure.AutoConfigureLocalLocks;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest
@AutoConfigureLocalLocks
class ShippingServiceTests {

	@Autowired
	ShippingService shipping;

	@Autowired
	LockRecorder locks;

	@Test
	void shippingLocksTheOrder() {
		long first = this.shipping.ship(new Order("42"));
		long second = this.shipping.ship(new Order("42"));
		assertThat(this.locks).locked("order:42").withLease(Duration.ofSeconds(30));
		assertThat(second).isGreaterThan(first);
	}

}
