import { randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { waitForRunEnd } from "./helpers";

// The first run of a fresh machine may build the lab images.
const RUN_TIMEOUT = 6 * 60_000;

/** A finished run with samples: one an earlier spec left, or a short one made here. */
async function finishedRun(request: APIRequestContext): Promise<string> {
  const listed = (await (await request.get("/api/v1/runs?limit=100&status=succeeded")).json()) as {
    items: { id: string; summary: { requests: number } | null }[];
  };
  const found = listed.items.find((r) => (r.summary?.requests ?? 0) > 0);
  if (found) return found.id;
  const res = await request.post("/api/v1/runs", {
    data: {
      name: "e2e run page: a short run",
      topology: { service: { replicas: 1, cpus: 0.5, memoryMb: 128 } },
      workload: { endpoint: "hostname", vus: 2, durationSeconds: 5 },
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  const { id } = (await res.json()) as { id: string };
  expect((await waitForRunEnd(request, id, RUN_TIMEOUT)).status).toBe("succeeded");
  return id;
}

test("a finished run's page comes with its first screen's charts in the server's HTML, subscribes to nothing and reads its container charts when near", async ({
  page,
  request,
}) => {
  test.setTimeout(RUN_TIMEOUT + 60_000);
  const id = await finishedRun(request);

  // The HTML as the server sends it, before any script: the figures and the two first charts drawn.
  const html = await (await request.get(`/runs/${id}`)).text();
  expect(html).toContain('data-testid="summary-table"');
  for (const chart of ["chart-rps", "chart-latency"]) {
    const start = html.indexOf(`data-testid="${chart}"`);
    expect(start, `${chart} in the HTML`).toBeGreaterThan(0);
    // Up to the next chart: this chart's own markup.
    const next = html.indexOf('data-testid="chart-', start + 1);
    const own = html.slice(start, next === -1 ? undefined : next);
    expect(own, `${chart} drawn in the HTML`).toMatch(/<path class="chart-preview-line" d="M[\d.,ML]+"/);
  }

  const live: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("runs.live")) live.push(r.url());
  });
  await page.goto(`/runs/${id}`);
  // Recharts takes the charts over once the page runs (its tooltip answers the pointer).
  await expect(page.locator('[data-testid="chart-rps"] path.recharts-curve')).toBeVisible();
  await expect(page.locator('[data-testid="chart-rps"] .chart-preview')).toHaveCount(0);
  await expect(page.getByTestId("figure-seconds")).not.toHaveText("0");
  expect(live, "a finished run's page needs no live stream").toEqual([]);
  // Its container readings are not in the HTML: read when their charts are scrolled near.
  expect(html).toContain("Reading the containers&#x27; statistics…");
  await page.getByTestId("container-charts").scrollIntoViewIfNeeded();
  await expect(page.locator('[data-testid="chart-cpu"] path.recharts-curve').first()).toBeVisible();
});

test("an unknown run's page says the run does not exist", async ({ page }) => {
  await page.goto(`/runs/${randomUUID()}`);
  await expect(page.getByTestId("run-missing")).toContainText("This run does not exist.");
});
