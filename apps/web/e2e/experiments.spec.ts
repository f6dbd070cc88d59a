import { writeFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { expect, test, type Page } from "@playwright/test";

// 2 variants × 2 repetitions of 5 s each: about 95 s planned, with room for a slow machine.
const EXPERIMENT_TIMEOUT = 4 * 60_000;
const URL_OF_EXPERIMENT = /\/experiments\/([0-9a-f-]{36})$/;
const LIVE = ["queued", "running"];

/** Where the experiment page says it stands: its status badge and its progress line. */
async function standing(page: Page): Promise<string> {
  // Short timeouts: this runs inside a poll, and a missing element must not hold it up.
  const status = await page
    .getByTestId("experiment-status")
    .getAttribute("data-status", { timeout: 1_000 })
    .catch(() => null);
  const progress = await page
    .getByTestId("experiment-progress")
    .innerText({ timeout: 1_000 })
    .catch(() => "(no progress shown)");
  const trouble = await page
    .getByTestId("experiment-trouble")
    .innerText({ timeout: 200 })
    .catch(() => "");
  return `${status ?? "(no status)"} · ${progress.replace(/\s+/g, " ").trim()}${trouble ? ` · ${trouble}` : ""}`;
}

test("a preset's quick check runs as an experiment, is compared and exports a self-contained report and CSV", async ({
  page,
  context,
  request,
}, testInfo) => {
  test.setTimeout(EXPERIMENT_TIMEOUT + 2 * 60_000);

  // (a) The preset, with 2 repetitions of a 5 s load instead of its own 3 × 20 s.
  await page.goto("/presets");
  const card = page.locator('[data-testid="preset"][data-preset="blocking-logging"]');
  await expect(card).toBeVisible();
  await expect(card.getByTestId("preset-shows")).not.toBeEmpty();
  await expect(card.getByTestId("preset-repetitions")).toHaveValue("3");
  await card.getByTestId("preset-repetitions").fill("2");
  await card.getByTestId("preset-duration").fill("5");
  await expect(card.getByTestId("preset-estimate")).toHaveAttribute("data-runs", "4");
  await expect(card.getByTestId("preset-estimate")).toContainText("4 runs");
  await expect(card.getByTestId("preset-run")).toBeEnabled();
  await card.getByTestId("preset-run").click();

  // The page moves to the experiment, or the card says why not (then that is the failure's message).
  const cardError = card.locator('[data-testid="preset-error"], [data-testid="preset-field-error"]');
  await expect
    .poll(
      async () => {
        if (URL_OF_EXPERIMENT.test(new URL(page.url()).pathname)) return "on the experiment's page";
        if ((await cardError.count()) > 0) return `the card says: ${(await cardError.allInnerTexts()).join(" | ")}`;
        return `still on ${page.url()}`;
      },
      { timeout: 30_000, message: "Run should lead to the new experiment's page" },
    )
    .toBe("on the experiment's page");
  const id = URL_OF_EXPERIMENT.exec(new URL(page.url()).pathname)![1]!;

  // (b) Until it ends: polled through the page itself, which refreshes while the experiment is live.
  await expect(page.getByTestId("experiment-name")).toBeVisible();
  let last = "";
  await expect
    .poll(
      async () => {
        last = await standing(page);
        const status = last.split(" · ")[0]!;
        return LIVE.includes(status) || status.startsWith("(") ? `not ended: ${last}` : status;
      },
      { timeout: EXPERIMENT_TIMEOUT, intervals: [2_000], message: `experiment ${id} should end within ${EXPERIMENT_TIMEOUT / 1000} s` },
    )
    .toMatch(/^(succeeded|failed|cancelled)$/);
  expect(await page.getByTestId("experiment-status").getAttribute("data-status"), `experiment ${id} ended as: ${last}`).toBe("succeeded");

  const api = (await (await request.get(`/api/v1/experiments/${id}`)).json()) as { name: string; preset: string | null };
  expect(api.preset).toBe("blocking-logging");
  await expect(page.getByTestId("experiment-name")).toContainText(api.name);

  // Both variants with their 2 succeeded runs.
  const variants = page.getByTestId("variant-row");
  await expect(variants, `variants shown (${last})`).toHaveCount(2);
  for (const name of ["blocking", "async"]) {
    const n = page.locator(`[data-testid="variant-row"][data-variant="${name}"] td:nth-child(3)`);
    await expect(n, `n of variant ${name} (${last})`).toHaveText(/^2(\s|$)/);
  }
  // async against the baseline, blocking.
  await expect(page.locator('table[data-testid="comparisons"] [data-testid="comparison-row"]'), `comparisons (${last})`).toHaveCount(1);
  await expect(page.locator('[data-testid="comparison-row"][data-variant="async"] td[data-metric="rps"]')).not.toHaveText("—");
  const findingsPanel = await page
    .getByTestId("findings")
    .innerText({ timeout: 5_000 })
    .catch(() => "(no findings panel)");
  await expect(
    page.getByTestId("findings").getByTestId("finding").first(),
    `at least one finding; the panel says: ${findingsPanel}`,
  ).toBeVisible();
  await expect(page.getByTestId("experiment-bars")).toBeVisible();

  // (c) The report, downloaded as the page's link does, opened from a file: it needs nothing else.
  const reportHref = await page.getByTestId("export-html").getAttribute("href");
  expect(reportHref).toBe(`/api/v1/experiments/${id}/export?format=html`);
  const report = await request.get(reportHref!);
  expect(report.status(), await report.text()).toBe(200);
  expect(report.headers()["content-type"]).toContain("text/html");
  expect(report.headers()["content-disposition"]).toMatch(/^inline; filename="[A-Za-z0-9-]+\.html"$/);
  const file = testInfo.outputPath("report.html");
  await writeFile(file, await report.body());
  const fileUrl = pathToFileURL(file).href;

  const offline = await context.newPage();
  const requested: string[] = [];
  offline.on("request", (r) => requested.push(r.url()));
  await offline.goto(fileUrl, { waitUntil: "load" });
  await expect(offline.locator("h1")).toHaveText(api.name);
  const charts = offline.locator("svg").filter({ has: offline.locator("rect.bar") });
  expect(await charts.count(), "svg charts with bars in the report").toBeGreaterThanOrEqual(2);
  for (const i of [0, 1]) {
    await expect(charts.nth(i)).toBeVisible();
    await expect(charts.nth(i).locator("rect.bar").first(), `a bar of chart ${i + 1}`).toBeVisible();
  }
  // Give anything the page might fetch late (fonts, images) a moment to show up.
  await offline.waitForTimeout(500);
  expect(
    requested.filter((u) => u !== fileUrl),
    "the report must load nothing but itself",
  ).toEqual([]);
  await offline.close();

  // (d) One CSV row per run, after the header.
  const csv = await request.get(`/api/v1/experiments/${id}/export?format=csv&table=runs`);
  expect(csv.status(), await csv.text()).toBe(200);
  expect(csv.headers()["content-type"]).toContain("text/csv");
  const lines = (await csv.text()).split(/\r?\n/).filter((l) => l !== "");
  expect(lines[0], "the CSV's header").toMatch(/^experiment,variant,repetition,attempt,runId,status,requests,rps,/);
  expect(lines.length - 1, `run rows in the CSV:\n${lines.join("\n")}`).toBe(4);
  for (const row of lines.slice(1)) expect(row, "each run row").toContain(",succeeded,");
});
