import { expect, test } from "@playwright/test";
import { runsNamed, uniqueName } from "./helpers";

test("99 replicas shows the field's error and creates nothing", async ({ page, request }) => {
  const name = uniqueName("e2e invalid");
  await page.goto("/runs/new");
  await page.getByTestId("field-name").fill(name);
  await page.getByTestId("field-replicas").fill("99");
  await page.getByTestId("field-replicas").blur();
  await expect(page.getByTestId("error-replicas")).toHaveText("service.replicas must be between 1 and 16");

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
