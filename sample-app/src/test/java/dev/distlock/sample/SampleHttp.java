package dev.distlock.sample;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

/**
 * A small HTTP client for one running instance of the sample: answers are status + JSON
 * object, never exceptions, so tests can assert on 409s as on 200s.
 */
final class SampleHttp {

	private final RestClient client;

	private final int port;

	SampleHttp(int port) {
		this.port = port;
		this.client = RestClient.builder()
			.baseUrl("http://127.0.0.1:" + port)
			.defaultStatusHandler(HttpStatusCode::isError, (request, response) -> {
			})
			.build();
	}

	int port() {
		return this.port;
	}

	Answer get(String path) {
		return answer(this.client.get().uri(path).retrieve().toEntity(Map.class));
	}

	List<?> getList(String path) {
		List<?> list = this.client.get().uri(path).retrieve().body(List.class);
		return (list != null) ? list : List.of();
	}

	Answer post(String path) {
		return answer(this.client.post().uri(path).retrieve().toEntity(Map.class));
	}

	@SuppressWarnings("unchecked")
	private static Answer answer(ResponseEntity<Map> entity) {
		Map<String, Object> body = (entity.getBody() != null) ? entity.getBody() : Map.of();
		return new Answer(entity.getStatusCode().value(), body);
	}

	/** One HTTP answer. */
	record Answer(int status, Map<String, Object> body) {

		@Nullable Object get(String name) {
			return this.body.get(name);
		}

		long number(String name) {
			Object value = this.body.get(name);
			if (!(value instanceof Number number)) {
				throw new AssertionError("No number '" + name + "' in " + this);
			}
			return number.longValue();
		}

		String text(String name) {
			return String.valueOf(this.body.get(name));
		}

		boolean flag(String name) {
			return Boolean.TRUE.equals(this.body.get(name));
		}

		Answer ok() {
			if (this.status != 200) {
				throw new AssertionError("Expected 200, got " + this);
			}
			return this;
		}

	}

}
