package dev.distlock.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page at {@code /} in a real browser: Debian's headless Chromium driven by Selenium
 * through Debian's chromedriver. It opens the page, reads the stock demo's code panel,
 * presses its button (disabled until the run ends, then showing the outcome) and reads
 * the timeline the page drew: the six reservations of one SKU held the lock one after
 * another (each hold ended before the next was granted) and their fencing tokens rose in
 * that order. Chromium missing fails the test with the command that installs it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.scheduling.enabled=false", "sample.instance-name=browser-test" })
@DirtiesContext
class SamplePageBrowserTests {

	static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("DISTLOCK_TEST_CHROMIUM", "/usr/bin/chromium"));

	static final Path CHROMEDRIVER = Path
		.of(System.getenv().getOrDefault("DISTLOCK_TEST_CHROMEDRIVER", "/usr/bin/chromedriver"));

	static WebDriver browser;

	@LocalServerPort
	int port;

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> TestDatabases.h2Url(SamplePageBrowserTests.class));
	}

	@BeforeAll
	static void startBrowser() {
		if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
			throw new AssertionError("The browser test needs headless Chromium and its driver at " + CHROMIUM + " and "
					+ CHROMEDRIVER + " (or DISTLOCK_TEST_CHROMIUM / DISTLOCK_TEST_CHROMEDRIVER). Install them with: "
					+ "sudo apt-get update && sudo apt-get install -y chromium chromium-driver (.ci/run does)");
		}
		// the Debian driver, not Selenium Manager, which would try to download one
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
			.usingAnyFreePort()
			.withLogFile(new File("target/chromedriver.log"))
			.build();
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM.toFile());
		// as root the sandbox must be off; /dev/shm is small in containers
		options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000");
		browser = new ChromeDriver(service, options);
	}

	@AfterAll
	static void stopBrowser() {
		if (browser != null) {
			browser.quit();
		}
	}

	@Test
	void stockDemoShowsHoldsOneAfterAnotherWithRisingTokens() {
		browser.get("http://localhost:" + this.port + "/");
		WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
		wait.ignoring(StaleElementReferenceException.class); // the page redraws its parts
																// as it polls
		wait.withMessage("the page to show this instance's name and a healthy backend")
			.until((page) -> page.findElement(By.id("instance")).getText().equals("browser-test")
					&& page.findElement(By.id("backend-status")).getText().equals("UP"));
		assertThat(browser.findElement(By.id("backend-name")).getText()).isEqualTo("jdbc");

		wait.withMessage("the demos to be listed with their code")
			.until((page) -> !page.findElements(By.id("demo-stock")).isEmpty());
		String code = (String) ((JavascriptExecutor) browser)
			.executeScript("return document.querySelector('#card-stock details.code').textContent;");
		assertThat(code).as("the stock demo's code panel")
			.contains("src/main/java/dev/distlock/sample/stock/StockService.java")
			.contains("@DistributedLock(name = \"stock\", key = \"#sku\"");

		browser.findElement(By.id("demo-stock")).click();
		assertThat(browser.findElement(By.id("demo-stock")).isEnabled()).as("the button while its demo runs").isFalse();

		wait.withMessage("the stock demo's run to finish on the page")
			.until((page) -> !page.findElements(By.cssSelector("#runs li.done[data-demo='STOCK']")).isEmpty());
		wait.withMessage("six released holds of the SKU on the timeline").until((page) -> holds(page).size() >= 6);
		List<Hold> holds = holds(browser);
		assertThat(holds).as("reservations on the timeline").hasSize(6);
		holds.sort(Comparator.comparingDouble(Hold::acquired));
		for (int i = 1; i < holds.size(); i++) {
			Hold previous = holds.get(i - 1);
			Hold next = holds.get(i);
			assertThat(next.acquired()).as("hold %s granted after %s ended", next, previous)
				.isGreaterThanOrEqualTo(previous.heldUntil());
			assertThat(next.token()).as("token of %s after %s", next, previous).isGreaterThan(previous.token());
		}
		String summary = wait
			.until((page) -> page.findElement(By.cssSelector("#runs li[data-demo='STOCK']")).getText());
		assertThat(summary).contains("6 reservations of ESPRESSO-MACHINE");
		wait.withMessage("the button enabled again, with the outcome beside it")
			.until((page) -> page.findElement(By.id("demo-stock")).isEnabled()
					&& page.findElement(By.id("status-stock"))
						.getText()
						.contains("6 reservations of ESPRESSO-MACHINE"));
		assertThat(browser.findElement(By.id("leases")).getText()).as("the leases table, times computed from epoch ms")
			.doesNotContain("NaN");
	}

	/**
	 * The released holds of the demo's SKU as the page drew them, read in one script: the
	 * page redraws the timeline every half second, so elements found one call earlier may
	 * be gone.
	 */
	private static List<Hold> holds(WebDriver page) {
		List<?> rows = (List<?>) ((JavascriptExecutor) page).executeScript(
				"return Array.from(document.querySelectorAll(\"#timeline g.call[data-key$='ESPRESSO-MACHINE']"
						+ "[data-state='RELEASED']\")).map(g => [g.dataset.instance + '/' + g.dataset.thread, "
						+ "g.dataset.token, g.dataset.acquired, g.dataset.heldUntil]);");
		List<Hold> holds = new ArrayList<>();
		for (Object row : rows) {
			List<?> cells = (List<?>) row;
			holds.add(new Hold((String) cells.get(0), Long.parseLong((String) cells.get(1)),
					Double.parseDouble((String) cells.get(2)), Double.parseDouble((String) cells.get(3))));
		}
		return holds;
	}

	record Hold(String holder, long token, double acquired, double heldUntil) {
	}

}
