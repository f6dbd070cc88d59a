import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests against a web app and a worker that are already running (the test script
 * starts them). Debian's Chromium: Playwright cannot download a browser here.
 */
export default defineConfig({
  testDir: "./e2e",
  // Runs execute one at a time per Docker host; parallel tests would only queue behind each other.
  workers: 1,
  timeout: 120_000,
  // Patient: the test script runs this suite beside the worker's integration lanes on 2 cores,
  // where a page's first data can take longer than on a quiet machine (speed is in the benchmarks).
  expect: { timeout: 30_000 },
  // One retry, reported as flaky in the results: beside the worker's integration lanes, Docker
  // adds and removes network interfaces all along, and Chromium then drops requests in flight
  // (net::ERR_NETWORK_CHANGED, even on 127.0.0.1). A page whose script chunk was dropped reloads
  // itself once (src/lib/asset-reload.ts; before it, such a page never hydrated or showed
  // "Application error", and twice in one test failed a CI run). A test that fails twice fails.
  retries: 1,
  reporter: [["list"]],
  use: {
    baseURL: process.env.SCALELAB_WEB_URL ?? "http://127.0.0.1:3000",
    // A page that never hydrated (above) fails its first action within a minute, so its retry
    // comes then and not at the test's own timeout: 10 min for the async run, which may build
    // Kafka (a fresh clone's suite lost 9.5 min so on 2026-11-26). Runs are awaited with expect.
    actionTimeout: 60_000,
    browserName: "chromium",
    launchOptions: {
      executablePath: process.env.SCALELAB_CHROMIUM ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
});
