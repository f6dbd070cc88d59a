import { expect, test } from "@playwright/test";
import { uniqueName, waitForRunEnd, pageRunEnd } from "./helpers";

// The first run of a fresh machine may build the lab images.
const RUN_TIMEOUT = 8 * 60_000;

test("a run from the form goes live, succeeds and compares with a second run", async ({ page, request }) => {
  test.setTimeout(2 * RUN_TIMEOUT);
  const name = uniqueName("e2e form");

  await page.goto("/runs/new");
  await page.getByTestId("field-name").fill(name);
  await page.getByTestId("field-replicas").fill("2");
  await page.getByTestId("field-endpoint").selectOption("hostname");
  await page.getByTestId("model-closed").check();
  await page.getByTestId("field-vus").fill("2");
  await page.getByTestId("field-durationSeconds").fill("8");
  // Thresholds as text lines: a wrong one is named under the field; one that passes, one no run can pass.
  await page.getByTestId("field-thresholds").fill("p95<10000\np96<1");
  await page.getByTestId("submit-run").click();
  await expect(page.getByTestId("error-thresholds")).toContainText('Thresholds, line 2: "p96<1": unknown metric p96');
  await page.getByTestId("field-thresholds").fill("p95<10000\nmax<0.001");
  await expect(page.getByTestId("preview-nginx")).toContainText("server app-1:");
  await expect(page.getByTestId("preview-nginx")).not.toContainText("server app-2:");
  await page.getByTestId("submit-run").click();

  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  const runId = new URL(page.url()).pathname.split("/").pop()!;
  await expect(page.getByTestId("run-name")).toContainText(name);

  // Watch the page while the run goes, from inside the page: the steps it shows and the points
  // the live chart draws. (Round trips from the test would be too slow on a machine under load.)
  await page.evaluate(() => {
    const t0 = performance.now();
    const at = () => `+${((performance.now() - t0) / 1000).toFixed(1)} s`;
    const seen = { steps: [] as string[], dots: [] as number[], log: [] as string[] };
    (window as unknown as { __seen: typeof seen }).__seen = seen;
    setInterval(() => {
      const step = document.querySelector('[data-testid="run-step"]')?.getAttribute("data-step");
      if (step && seen.steps.at(-1) !== step) {
        seen.steps.push(step);
        seen.log.push(`${step} ${at()}`);
      }
      const dots = document.querySelectorAll('[data-testid="chart-rps"] .recharts-line-dot').length;
      if (seen.dots.at(-1) !== dots) {
        seen.dots.push(dots);
        seen.log.push(`${dots} points ${at()}`);
      }
    }, 100);
  });
  const status = page.getByTestId("run-status");
  await pageRunEnd(page, RUN_TIMEOUT);
  const error = (await page.getByTestId("run-error").count()) > 0 ? await page.getByTestId("run-error").textContent() : "";
  expect(await status.getAttribute("data-status"), error ?? "").toBe("succeeded");

  const seen = await page.evaluate(() => (window as unknown as { __seen: { steps: string[]; dots: number[]; log: string[] } }).__seen);
  expect(seen.steps).toContain("running");
  expect(seen.steps.at(-1)).toBe("done");
  const counts = seen.dots.filter((n) => n > 0);
  // What the page showed when, for a failure's message: the steps and the chart's points as they came.
  expect(counts.length, `point counts seen live: ${seen.log.join(", ")}`).toBeGreaterThanOrEqual(2);
  expect(counts, "the chart only ever gains points").toEqual([...counts].sort((a, b) => a - b));
  expect(Math.max(...counts)).toBeGreaterThanOrEqual(5);
  await expect(page.getByTestId("summary-table")).toBeVisible();
  // The thresholds, each pass or fail with the run's own figure.
  const thresholds = page.getByTestId("thresholds");
  await expect(thresholds).toHaveAttribute("data-passed", "false");
  const rows = thresholds.getByTestId("threshold");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAttribute("data-passed", "true");
  await expect(rows.nth(0)).toContainText(/p95<10000\s*[\d.,]+ ms\s*pass/);
  await expect(rows.nth(1)).toHaveAttribute("data-passed", "false");
  await expect(rows.nth(1)).toContainText(/max<0\.001\s*[\d.,]+ ms\s*fail/);
  // The host's CPU outside the run, one point per second of the load (stored when the load is over).
  await expect(page.getByTestId("chart-host")).toHaveAttribute("data-points", /^[1-9]\d*$/);
  // Findings' evidence reads as words with units, never a raw key such as "pctOfLimit".
  for (const label of await page.locator('[data-testid="finding"] .evidence dt').allTextContents())
    expect(label).not.toMatch(/^[a-z]+[A-Z]\w*$/);

  // A second run through the REST API.
  const second = uniqueName("e2e api");
  const created = await request.post("/api/v1/runs", {
    data: {
      name: second,
      topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 1, memoryMb: 128 } },
      workload: { endpoint: "hostname", vus: 2, durationSeconds: 6 },
    },
  });
  expect(created.status()).toBe(201);
  const { id: secondId, status: secondStatus } = (await created.json()) as { id: string; status: string };
  expect(secondStatus).toBe("queued");
  expect((await waitForRunEnd(request, secondId, RUN_TIMEOUT)).status).toBe("succeeded");

  // Select both in the list and compare them.
  await page.goto("/runs");
  await page.locator(`[data-testid="run-row"][data-run-id="${runId}"] [data-testid="run-select"]`).check();
  await page.locator(`[data-testid="run-row"][data-run-id="${secondId}"] [data-testid="run-select"]`).check();
  await page.getByTestId("compare-selected").click();
  await page.waitForURL(/\/compare\?ids=/);

  const table = page.getByTestId("compare-table");
  await expect(table).toBeVisible();
  await expect(table.getByTestId("compare-run-header")).toHaveCount(2);
  await expect(table.getByTestId("ratio-header")).toHaveText(`${second} / ${name}`);
  await expect(page.getByTestId("figure-rps").getByTestId("ratio-cell")).toHaveText(/^\d+(\.\d+)?×$/);
  // Charts below the first screen are drawn when scrolled near.
  await page.getByTestId("compare-chart-rps").scrollIntoViewIfNeeded();
  await expect(page.locator('[data-testid="compare-chart-rps"] .recharts-line')).toHaveCount(2);

  // One run per side: the page says it cannot tell a difference from noise, gives no better or
  // worse, and repeats both as an experiment in one click.
  await expect(page.getByTestId("compare-single")).toContainText("One run per side cannot tell a difference from noise");
  const rps = page.getByTestId("verdict-rps").getByTestId("verdict-cell");
  await expect(rps).toHaveAttribute("data-verdict", "cannot_tell");
  await expect(rps).toContainText(/differs by [+\u2212]\d+(\.\d)? %: one run per side cannot tell a difference from noise/);
  await expect(
    page.locator('[data-testid="verdict-cell"][data-verdict="better"], [data-testid="verdict-cell"][data-verdict="worse"]'),
  ).toHaveCount(0);
  await page.getByTestId("compare-repeat").click();
  await page.waitForURL(/\/experiments\/[0-9a-f-]{36}$/);
  const experimentId = new URL(page.url()).pathname.split("/").pop()!;
  const experiment = (await (await request.get(`/api/v1/experiments/${experimentId}`)).json()) as {
    repetitions: number;
    variants: { name: string; runs: { id: string }[] }[];
  };
  expect(experiment.variants.map((v) => v.name)).toEqual([`A: ${name}`, `B: ${second}`]);
  expect(experiment.repetitions).toBe(3);
  expect(experiment.variants.map((v) => v.runs.length)).toEqual([3, 3]);
  // Its variants run the compared runs' definitions.
  const definitionOf = async (id: string) => {
    const run = (await (await request.get(`/api/v1/runs/${id}`)).json()) as { topology: unknown; workload: unknown };
    return { topology: run.topology, workload: run.workload };
  };
  for (const [variant, compared] of [
    [experiment.variants[0]!, runId],
    [experiment.variants[1]!, secondId],
  ] as const) {
    expect(await definitionOf(variant.runs[0]!.id)).toEqual(await definitionOf(compared));
  }
  // The suite need not wait for its six runs.
  expect((await request.post(`/api/v1/experiments/${experimentId}/cancel`)).status()).toBe(200);
});
