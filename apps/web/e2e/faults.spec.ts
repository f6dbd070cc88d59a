import { expect, test } from "@playwright/test";
import { uniqueName, pageRunEnd } from "./helpers";

// Images are built by the test script before the specs; a cold machine may still build one.
const RUN_TIMEOUT = 5 * 60_000;

test("two faults added on the form's timeline are checked as typed, applied during the run and drawn on its charts", async ({
  page,
  request,
}) => {
  test.setTimeout(RUN_TIMEOUT + 60_000);
  const name = uniqueName("e2e faults");

  await page.goto("/runs/new");
  await page.getByTestId("field-name").fill(name);
  await page.getByTestId("field-replicas").fill("3");
  await page.getByTestId("field-endpoint").selectOption("hostname");
  await page.getByTestId("model-open").check();
  await page.getByTestId("field-arrivalRate").fill("20");
  await page.getByTestId("field-durationSeconds").fill("12");

  // First a fault that cannot be: a start of a replica that is running.
  await page.getByTestId("add-fault").click();
  const first = page.getByTestId("fault-row-0");
  await expect(first).toBeVisible();
  await expect(page.getByTestId("fault-role-0")).toContainText("replicas (app) × 3");
  await page.getByTestId("fault-at-0").fill("3");
  await page.getByTestId("fault-action-0").selectOption("start");
  await page.getByTestId("fault-index-0").fill("1");
  await expect(page.getByTestId("fault-error-0")).toContainText("faults[0] (start app-1 @3s): start needs a stopped container");
  // An index past the replicas is named too, with the run's count.
  await page.getByTestId("fault-index-0").fill("3");
  await expect(page.getByTestId("fault-error-0")).toContainText("target.index must be between 0 and 2: the run has 3 replicas");

  // Fixed: stop app-1 at 3 s, then start it at 7 s.
  await page.getByTestId("fault-index-0").fill("1");
  await page.getByTestId("fault-action-0").selectOption("stop");
  await expect(page.getByTestId("fault-error-0")).toHaveCount(0);
  await page.getByTestId("add-fault").click();
  await expect(page.getByTestId("fault-action-1")).toHaveValue("start");
  await page.getByTestId("fault-at-1").fill("7");
  await page.getByTestId("fault-role-1").selectOption("app");
  await page.getByTestId("fault-index-1").fill("1");
  await expect(page.getByTestId("fault-error-1")).toHaveCount(0);
  await expect(page.getByTestId("fault-timeline").getByTestId(/^fault-mark-/)).toHaveCount(2);
  await expect(page.getByTestId("fault-timeline")).toContainText("stop app-1 @3s");
  await expect(page.getByTestId("fault-timeline")).toContainText("start app-1 @7s");

  await page.getByTestId("submit-run").click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  const runId = new URL(page.url()).pathname.split("/").pop()!;
  // What the fault table shows while the run goes, watched from inside the page (the step, the
  // seconds measured, and whether each fault is applied yet).
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __seen: string[] }).__seen = seen;
    setInterval(() => {
      const q = (id: string) => document.querySelector(`[data-testid="${id}"]`);
      const state = [
        q("run-step")?.getAttribute("data-step"),
        q("figure-seconds")?.textContent,
        q("fault-0")?.getAttribute("data-applied"),
        q("fault-1")?.getAttribute("data-applied"),
      ].join(" ");
      if (seen.at(-1) !== state) seen.push(state);
    }, 100);
  });
  await expect(page.getByTestId("run-name")).toContainText(name);
  await expect(page.getByTestId("run-setup")).toContainText("stop app-1 @3s, start app-1 @7s");

  const status = page.getByTestId("run-status");
  await pageRunEnd(page, RUN_TIMEOUT);
  const error = (await page.getByTestId("run-error").count()) > 0 ? await page.getByTestId("run-error").textContent() : "";
  expect(await status.getAttribute("data-status"), error ?? "").toBe("succeeded");

  // The table filled in live: a fault was shown applied while the load still ran (not only in the final stored run).
  const seen = await page.evaluate(() => (window as unknown as { __seen: string[] }).__seen);
  expect(
    seen.some((state) => /^running \d+ yes /.test(state)),
    `states seen (step, seconds, applied):\n${seen.join("\n")}`,
  ).toBe(true);

  // Each fault is a line on the charts, at the second it was applied.
  for (const chart of ["chart-rps", "chart-latency", "chart-backends"]) {
    // Charts below the first screen are drawn when scrolled near.
    await page.getByTestId(chart).scrollIntoViewIfNeeded();
    await expect(page.getByTestId(chart).locator(".fault-marker"), chart).toHaveCount(2);
  }
  await expect(page.getByTestId("chart-rps")).toContainText("stop app-1 @3s");

  const table = page.getByTestId("fault-table");
  await expect(table.locator("tbody tr")).toHaveCount(2);
  for (const i of [0, 1]) {
    await expect(page.getByTestId(`fault-${i}`)).toHaveAttribute("data-applied", "yes");
    await expect(page.getByTestId(`fault-applied-${i}`)).toHaveText(/^\d+\.\d\d s \(\+?-?\d+ ms\)$/);
    await expect(page.getByTestId(`fault-failed-${i}`)).toHaveText(/^\d/);
  }

  // The API has the same actual times the table shows.
  const run = (await (await request.get(`/api/v1/runs/${runId}`)).json()) as { faults: { actual?: { atMs: number; error?: string } }[] };
  expect(run.faults.map((f) => Math.floor((f.actual?.atMs ?? -1) / 1000))).toEqual([3, 7]);
});
