import { expect, test } from "@playwright/test";
import { runsNamed, uniqueName, waitForRunEnd } from "./helpers";

test("99 replicas shows the field's error and creates nothing", async ({ page, request }) => {
  const name = uniqueName("e2e invalid");
  await page.goto("/runs/new");
  await page.getByTestId("field-name").fill(name);
  await page.getByTestId("field-replicas").fill("99");
  await page.getByTestId("field-replicas").blur();
  // The form names the field by its label; the API (below) keeps its path.
  await expect(page.getByTestId("error-replicas")).toHaveText("Replicas must be between 1 and 16");

  await page.getByTestId("submit-run").click();
  await expect(page).toHaveURL(/\/runs\/new$/);
  await expect(page.getByTestId("error-replicas")).toBeVisible();

  // The server refuses the same body with the same message, field by field.
  const res = await request.post("/api/v1/runs", {
    data: { name, topology: { service: { replicas: 99 } }, workload: { endpoint: "hostname", vus: 2, durationSeconds: 8 } },
  });
  expect(res.status()).toBe(400);
  expect(await res.json()).toEqual({
    error: "invalid_input",
    message: expect.any(String),
    issues: [{ path: "topology.service.replicas", message: "service.replicas must be between 1 and 16" }],
  });
  expect(await runsNamed(request, name)).toEqual([]);
});

test("switching the balancer to HAProxy takes its own algorithm, and the hints give this host's limits", async ({ page, request }) => {
  const host = (await (await request.get("/api/v1/host")).json()) as { cpus: number };
  await page.goto("/runs/new");
  await expect(page.locator("#f-cpus-hint")).toContainText(`0.05–${host.cpus}`);
  await expect(page.locator("#f-loadgenCpus-hint")).toContainText(`–${host.cpus}`);

  await page.getByTestId("field-balancer.kind").selectOption("nginx");
  await page.getByTestId("field-algorithm").selectOption("least_conn");
  await page.getByTestId("field-balancer.kind").selectOption("haproxy");
  await expect(page.getByTestId("field-haproxyAlgorithm")).toHaveValue("roundrobin");
  await page.getByTestId("preview-tab-haproxy").click();
  await expect(page.getByTestId("preview-haproxy")).toContainText("balance roundrobin");
  await expect(page.getByTestId("error-haproxyAlgorithm")).toHaveCount(0);
  await expect(page.getByTestId("form-errors")).toHaveCount(0);
  await page.getByTestId("field-balancer.kind").selectOption("nginx");
  await expect(page.getByTestId("field-algorithm")).toHaveValue("round_robin");
  await page.getByTestId("field-balancer.kind").selectOption("haproxy");

  // Start is not blocked: the run is created (and cancelled at once: its result is not what this test is about).
  const name = uniqueName("e2e haproxy switch");
  await page.getByTestId("field-name").fill(name);
  await page.getByTestId("submit-run").click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  const id = new URL(page.url()).pathname.split("/").pop()!;
  const run = (await (await request.get(`/api/v1/runs/${id}`)).json()) as { topology: { balancer: { kind: string; algorithm: string } } };
  expect(run.topology.balancer).toMatchObject({ kind: "haproxy", algorithm: "roundrobin" });
  expect([200, 409]).toContain((await request.post(`/api/v1/runs/${id}/cancel`)).status());
  await waitForRunEnd(request, id, 120_000);
});

test("memory beyond the host is refused by the server and shown under its field", async ({ page, request }) => {
  // 16 replicas × 65,536 MB is within the schema's bounds and beyond any host this runs on, so
  // only the server's check against the host can refuse it.
  const host = (await (await request.get("/api/v1/host")).json()) as { memoryBytes: number };
  expect(16 * 65_536 * 1024 ** 2, "the host must have less than 1 TiB of memory for this test").toBeGreaterThan(host.memoryBytes * 0.75);
  const name = uniqueName("e2e host bounds");

  await page.goto("/runs/new");
  await page.getByTestId("field-name").fill(name);
  await page.getByTestId("field-replicas").fill("16");
  await page.getByTestId("field-memoryMb").fill("65536");
  await page.getByTestId("submit-run").click();

  await expect(page.getByTestId("error-memoryMb")).toContainText("for 16 replica(s) (this host has");
  await expect(page).toHaveURL(/\/runs\/new$/);
  expect(await runsNamed(request, name)).toEqual([]);
});

test("REST: unknown runs are 404 and the OpenAPI document describes the API", async ({ request }) => {
  const missing = await request.get("/api/v1/runs/00000000-0000-0000-0000-000000000000");
  expect(missing.status()).toBe(404);
  expect(await missing.json()).toMatchObject({ error: "not_found" });

  const doc = (await (await request.get("/api/v1/openapi.json")).json()) as {
    paths: Record<string, Record<string, { responses: object }>>;
  };
  expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/runs", "/runs/{id}", "/runs/{id}/samples", "/runs/{id}/cancel"]));
  expect(Object.keys(doc.paths["/runs"]!.post!.responses)).toEqual(expect.arrayContaining(["201", "400"]));
});

test("over-subscription: the run form and the experiment form say so before Start", async ({ page, request }) => {
  const host = (await (await request.get("/api/v1/host")).json()) as { cpus: number };
  const said = `cores on this ${host.cpus}-core host: they will share the cores, so the figures measure the sharing too`;
  await page.goto("/runs/new");
  await page.getByTestId("field-durationSeconds").fill("5");
  // Two replicas at every core of the host, and the load generator's CPU beside them.
  await page.getByTestId("field-replicas").fill("2");
  await page.getByTestId("field-cpus").fill(String(host.cpus));
  await expect(page.getByTestId("run-warnings")).toContainText(said);
  await expect(page.getByTestId("run-warnings")).toContainText(/the containers' CPU limits add up to [\d.]+ cores/);
  // One replica at 0.2 CPU beside the load generator's 1: within the host, nothing to say.
  await page.getByTestId("field-replicas").fill("1");
  await page.getByTestId("field-cpus").fill("0.2");
  await expect(page.getByTestId("run-warnings")).toHaveCount(0);

  await page.goto("/experiments/new");
  await page
    .getByTestId("experiment-base")
    .fill(JSON.stringify({ topology: { service: { replicas: 2, cpus: host.cpus } }, workload: { vus: 1, durationSeconds: 5 } }));
  await expect(page.getByTestId("experiment-warnings")).toContainText(said);
});

test("an experiment beyond the lab's maximum is refused under the field to change, before and at Start, and nothing is created", async ({
  page,
  request,
}) => {
  const name = uniqueName("e2e too long");
  await page.goto("/experiments/new");
  await page.getByTestId("experiment-name").fill(name);
  await page
    .getByTestId("experiment-base")
    .fill(JSON.stringify({ topology: { service: { replicas: 1, cpus: 0.2 } }, workload: { vus: 1, durationSeconds: 3600 } }));
  await page.getByTestId("experiment-repetitions").fill("20");
  // One run of an hour fits; 20 of them do not: the repetitions are the field to change.
  const issue = page.locator('[data-testid="field-issue"][data-field="repetitions"]');
  const message =
    "this experiment would take about 20 h (20 runs × 3,600 s plus start-up and settle pauses); the lab allows at most 6 h per experiment (SCALELAB_MAX_EXPERIMENT_HOURS)";
  await expect(issue).toHaveText(message);
  await page.getByTestId("experiment-submit").click();
  await expect(issue).toHaveText(message);
  await expect(page).toHaveURL(/\/experiments\/new$/);
  const list = (await (await request.get(`/api/v1/experiments?q=${encodeURIComponent(name)}`)).json()) as { items: unknown[] };
  expect(list.items).toEqual([]);
  const runs = (await (await request.get(`/api/v1/runs?limit=500&q=${encodeURIComponent(name)}`)).json()) as { items: unknown[] };
  expect(runs.items).toEqual([]);
});
