package dev.distlock.sample;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The name this instance of the application records next to the work it did under a lock,
 * so that the output of two instances can be told apart: {@code sample.instance-name}
 * when set, otherwise {@code host:port} once the web server runs, {@code host:pid}
 * without one.
 */
@Component
public class InstanceName {

	private final boolean configured;

	private volatile String name;

	@Autowired
	InstanceName(SampleProperties properties) {
		this(properties.instanceName());
	}

	/**
	 * Creates the name.
	 * @param configured the name, blank for {@code host:port}
	 */
	public InstanceName(String configured) {
		this.configured = !configured.isBlank();
		this.name = this.configured ? configured : host() + ":" + ManagementFactory.getRuntimeMXBean().getPid();
	}

	@EventListener
	void onWebServerStarted(WebServerInitializedEvent event) {
		if (!this.configured) {
			this.name = host() + ":" + event.getWebServer().getPort();
		}
	}

	@Override
	public String toString() {
		return this.name;
	}

	private static String host() {
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			return "localhost";
		}
	}

}
