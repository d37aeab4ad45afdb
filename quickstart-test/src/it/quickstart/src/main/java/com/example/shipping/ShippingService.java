package com.example.shipping;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.core.LockContext;

import org.springframework.stereotype.Service;

@Service
public class ShippingService {

	@DistributedLock(name = "order", key = "#order.id", lease = "30s", waitTime = "5s")
	public long ship(Order order) {
		long token = LockContext.currentLease().fencingToken();
		// ... ship the order; pass the token to the writes it makes (docs/fencing.md)
		return token;
	}

}
