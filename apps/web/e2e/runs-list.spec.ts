import { randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { createDb } from "@scalelab/db";
import { ZRunCreate } from "@scalelab/scenarios/contract";
import { e2eEnv } from "./env";
import { uniqueName, waitForRunEnd } from "./helpers";

// The first run of a fresh machine may build the lab images.
const RUN_TIMEOUT = 8 * 60_000;

const runBody = (name: string) => ({
  name,
  topology: { service: { replicas: 1, memoryMb: 128 } },
  workload: { endpoint: "hostname", vus: 1, durationSeconds: 5 },
});

async function createRun(request: APIRequestContext, name: string): Promise<string> {
  const res = await request.post("/api/v1/runs", { data: runBody(name) });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** The oldest run, by following the API's pages to the end. */
async function oldestRun(request: APIRequestContext): Promise<string> {
  let cursor: string | null = null;
  let oldest = "";
  do {
    const res = await request.get(`/api/v1/runs?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(res.status()).toBe(200);
    const page = (await res.json()) as { items: { id: string }[]; nextCursor: string | null };
    oldest = page.items.at(-1)?.id ?? oldest;
    cursor = page.nextCursor;
  } while (cursor);
  return oldest;
}

test("the runs page pages to the oldest run, searches, deletes with a confirmation, re-runs, and copies a run into the form", async ({
  page,
  request,
}) => {
  test.setTimeout(2 * RUN_TIMEOUT);
  const [a, b] = [uniqueName("e2e list a"), uniqueName("e2e list b")];
  const aId = await createRun(request, a);
  const bId = await createRun(request, b);
  expect((await waitForRunEnd(request, bId, RUN_TIMEOUT)).status).toBe("succeeded");
  const oldest = await oldestRun(request);

  // Every run one by one, a page at a time, to the oldest (one page on screen at a time).
  await page.goto("/runs");
  await page.getByTestId("show-all-runs").check();
  await expect(page.locator(`[data-testid="run-row"][data-run-id="${bId}"]`)).toBeVisible();
  const older = page.getByTestId("load-older");
  const paging = Date.now();
  let clicks = 0;
  for (let i = 0; i < 500 && !(await page.getByTestId("runs-end").isVisible()); i++) {
    if (await older.isEnabled().catch(() => false)) {
      await older.click();
      clicks++;
    }
    await page.waitForTimeout(100);
  }
  await expect(page.getByTestId("runs-end")).toBeVisible();
  const range = await page.getByTestId("runs-range").textContent();
  console.log(`the dashboard paged to the oldest run (rows ${range}) in ${((Date.now() - paging) / 1000).toFixed(1)} s, ${clicks} pages`);
  await expect(page.locator(`[data-testid="run-row"][data-run-id="${oldest}"]`)).toBeVisible();
  await expect(page.locator('[data-testid="run-row"]').last()).toHaveAttribute("data-run-id", oldest);

  // The name search (debounced) finds one run among them.
  await page.getByTestId("runs-search").fill(a.toUpperCase());
  await expect(page.locator('[data-testid="run-row"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="run-row"]')).toHaveAttribute("data-run-id", aId);

  // Delete it: the dialog asks first; "Keep it" keeps it.
  const row = page.locator(`[data-testid="run-row"][data-run-id="${aId}"]`);
  await row.getByTestId("delete-run").click();
  const dialog = page.getByTestId("confirm-delete-dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(a);
  await dialog.getByTestId("confirm-delete-keep").click();
  await expect(dialog).toHaveCount(0);
  expect((await request.get(`/api/v1/runs/${aId}`)).status()).toBe(200);
  await row.getByTestId("delete-run").click();
  await page.getByTestId("confirm-delete").click();
  await expect(page.getByTestId("runs-empty")).toBeVisible();
  // The run was queued or had ended by now; a running one would be deleted once torn down.
  await expect.poll(async () => (await request.get(`/api/v1/runs/${aId}`)).status(), { timeout: 30_000 }).toBe(404);

  // "Copy and change" opens the form filled with run b's definition.
  await page.getByTestId("runs-search").fill(b);
  const bRow = page.locator(`[data-testid="run-row"][data-run-id="${bId}"]`);
  await expect(bRow).toBeVisible();
  await bRow.getByTestId("copy-run-link").click();
  await page.waitForURL(/\/runs\/new\?from=/);
  await expect(page.getByTestId("copied-from")).toContainText(b);
  await expect(page.getByTestId("field-name")).toHaveValue(b);
  await expect(page.getByTestId("field-replicas")).toHaveValue("1");
  await expect(page.getByTestId("field-durationSeconds")).toHaveValue("5");

  // Re-run b from the list: a new run of the same definition, on its own page.
  await page.goto("/runs");
  await page.getByTestId("runs-search").fill(b);
  await page.locator(`[data-testid="run-row"][data-run-id="${bId}"]`).getByTestId("rerun").click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  const againId = new URL(page.url()).pathname.split("/").pop()!;
  expect(againId).not.toBe(bId);
  await expect(page.getByTestId("run-name")).toContainText(b);
  expect((await waitForRunEnd(request, againId, RUN_TIMEOUT)).status).toBe("succeeded");

  // Delete the re-run from its own page: back to the list, gone from the API.
  await page.reload();
  await page.getByTestId("delete-run").click();
  await page.getByTestId("confirm-delete").click();
  await page.waitForURL(/\/runs$/);
  expect((await request.get(`/api/v1/runs/${againId}`)).status()).toBe(404);
  await request.delete(`/api/v1/runs/${bId}`);
});

test("an experiment is one row in the list, and deleting it from its page takes its runs, even a running one", async ({
  page,
  request,
}) => {
  test.setTimeout(RUN_TIMEOUT);
  const name = uniqueName("e2e delete experiment");
  const created = await request.post("/api/v1/experiments", {
    // A load long enough that the delete lands while the run is under way.
    data: {
      name,
      base: { ...runBody("base"), workload: { ...runBody("base").workload, durationSeconds: 30 } },
      variants: [{ name: "one", patch: {} }],
      repetitions: 1,
      settleSeconds: 0,
    },
  });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const runs = (await (await request.get(`/api/v1/runs?experiment=${id}`)).json()) as { items: { id: string }[] };
  expect(runs.items).toHaveLength(1);
  const runId = runs.items[0]!.id;

  await page.goto("/runs");
  await page.getByTestId("runs-search").fill(name);
  await expect(page.locator(`[data-testid="experiment-row"][data-experiment-id="${id}"]`)).toBeVisible();
  await expect(page.locator('[data-testid="run-row"]')).toHaveCount(0);

  // Its run is taken by the worker: deleting now cancels it and leaves it to the worker's teardown.
  await expect
    .poll(async () => ((await (await request.get(`/api/v1/runs/${runId}`)).json()) as { status: string }).status, { timeout: RUN_TIMEOUT })
    .toBe("running");
  await page.goto(`/experiments/${id}`);
  await page.getByTestId("delete-experiment").click();
  await expect(page.getByTestId("confirm-delete-dialog")).toContainText(name);
  await page.getByTestId("confirm-delete").click();
  await page.waitForURL(/\/runs$/);
  expect((await request.get(`/api/v1/experiments/${id}`)).status()).toBe(404);
  await expect.poll(async () => (await request.get(`/api/v1/runs/${runId}`)).status(), { timeout: 60_000 }).toBe(404);
});

test('"Oldest first" shows the oldest run in one step; at most 20 runs can be ticked for compare', async ({ page, request }) => {
  // 21 finished runs inserted rather than run (a run takes seconds, these take none); the first
  // is older than any run a lab makes.
  const name = uniqueName("e2e order");
  const def = ZRunCreate.parse({ topology: { service: { replicas: 1 } }, workload: { endpoint: "hostname", vus: 1, durationSeconds: 5 } });
  const rows = Array.from({ length: 21 }, (_, i) => ({
    id: randomUUID(),
    name: `${name} ${String(i).padStart(2, "0")}`,
    status: "cancelled" as const,
    step: "done",
    topology: def.topology,
    workload: def.workload,
    faults: def.faults,
    createdAt: i === 0 ? new Date("2001-01-01T00:00:00.000Z") : new Date(Date.now() - (21 - i) * 1000),
  }));
  const db = createDb(e2eEnv().DATABASE_URL);
  try {
    await db.run.createMany({ data: rows });
    // The oldest by the API's newest-first pages, followed to the end: the run made in 2001.
    const oldest = await oldestRun(request);
    expect(oldest).toBe(rows[0]!.id);

    await page.goto("/runs");
    await page.getByTestId("show-all-runs").check();
    await page.getByTestId("runs-order").selectOption("oldest");
    await expect(page.locator('[data-testid="run-row"]').first()).toHaveAttribute("data-run-id", oldest);
    await expect(page.getByTestId("load-newer")).toBeDisabled();
    await expect(page.getByTestId("load-newer")).toHaveText("Older");
    await page.getByTestId("runs-order").selectOption("newest");
    await expect(page.locator('[data-testid="run-row"]').first()).not.toHaveAttribute("data-run-id", oldest);

    // Compare takes 2 to 20 runs: with 20 ticked, the 21st box is disabled and says why.
    await page.getByTestId("runs-search").fill(name);
    const boxes = page.locator('[data-testid="run-row"]').getByTestId("run-select");
    await expect(boxes).toHaveCount(21);
    for (let i = 0; i < 20; i++) await boxes.nth(i).check();
    await expect(page.getByTestId("compare-selected")).toHaveText("Compare (20)");
    const last = boxes.nth(20);
    await expect(last).toBeDisabled();
    await expect(last).toHaveAttribute("title", /at most 20 runs/);
    await boxes.nth(0).uncheck();
    await expect(last).toBeEnabled();
    await last.check();
    await expect(page.getByTestId("compare-selected")).toHaveText("Compare (20)");
    await expect(boxes.nth(0)).toBeDisabled();
  } finally {
    await db.run.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
    await db.$disconnect();
  }
});
