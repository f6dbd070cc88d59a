import { expect, test } from "@playwright/test";
import { uniqueName, waitForRunEnd } from "./helpers";

// The first run of a fresh machine may build the lab images.
const RUN_TIMEOUT = 8 * 60_000;

test("the live page shows each of the run's events once, as the stored timeline has them", async ({ page, request }) => {
  test.setTimeout(RUN_TIMEOUT + 60_000);
  const name = uniqueName("e2e live events");
  // Opened from the form, as a user does (a client-side navigation to the run page).
  await page.goto("/runs/new");
  await page.getByTestId("field-name").fill(name);
  await page.getByTestId("field-replicas").fill("1");
  await page.getByTestId("field-endpoint").selectOption("hostname");
  await page.getByTestId("field-vus").fill("2");
  await page.getByTestId("field-durationSeconds").fill("6");
  await page.getByTestId("submit-run").click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  const id = new URL(page.url()).pathname.split("/").pop()!;

  // Every list of events the page shows while the run is live, read from inside the page (round
  // trips from the test would miss the short steps).
  await page.evaluate(() => {
    const seen: string[][] = [];
    (window as unknown as { __logs: string[][] }).__logs = seen;
    const timer = setInterval(() => {
      const status = document.querySelector('[data-testid="run-status"]')?.getAttribute("data-status");
      const lines = [...document.querySelectorAll('[data-testid="run-log"] li')].map((li) => li.textContent ?? "");
      if (lines.length > 0 && lines.join("\n") !== seen.at(-1)?.join("\n")) seen.push(lines);
      if (status && !["queued", "running"].includes(status)) clearInterval(timer);
    }, 50);
  });
  // The run's end from the API first, then the page within 30 s of it: a page whose live stream
  // stalled fails here in half a minute (and is retried) rather than at the run's 8-minute bound.
  await waitForRunEnd(request, id, RUN_TIMEOUT);
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-status", "succeeded", { timeout: 30_000 });
  const logs = await page.evaluate(() => (window as unknown as { __logs: string[][] }).__logs);
  expect(logs.length, "the page showed events while the run was live").toBeGreaterThan(1);
  for (const lines of logs) expect(lines.length, `each event once:\n${lines.join("\n")}`).toBe(new Set(lines).size);

  // What the page showed live is the stored timeline (as a reload reads it), in its order.
  await waitForRunEnd(request, id, 30_000);
  const live = logs.at(-1)!;
  await page.reload();
  await expect(page.getByTestId("run-log").locator("li").first()).toBeVisible();
  const reloaded = await page.getByTestId("run-log").locator("li").allTextContents();
  expect(reloaded.slice(0, live.length)).toEqual(live);
});
