import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { createDb } from "@scalelab/db";
import { removeEngine, saveEngine } from "@scalelab/db/engines";
import type { TEngineConfig } from "@scalelab/scenarios/contract";
import { e2eEnv } from "./env";
import { docker } from "./helpers";

// Engines are added on the lab's host (lab engine add), never through the API: the spec stores
// its own in the e2e web's database and removes them after.
const db = createDb(e2eEnv().DATABASE_URL, { max: 1 });
const suffix = randomUUID().slice(0, 6);
const engine = (name: string, nodes: { name: string; endpoint: string }[]): TEngineConfig => ({
  name,
  kind: "swarm",
  manager: nodes[0]!.endpoint,
  nodes,
  tlsDir: null,
  registry: null,
  machines: "auto",
});
const stored: string[] = [];
async function store(c: TEngineConfig) {
  await saveEngine(db, c.name, c.kind, c);
  stored.push(c.name);
}

test.afterAll(async () => {
  for (const name of stored) await removeEngine(db, name);
  await db.$disconnect();
});

/** The nodes of the test cluster scripts/swarm.sh starts (labelled scalelab.cluster=swarm-local). */
async function swarmNodes(): Promise<{ name: string; endpoint: string }[]> {
  const filters = encodeURIComponent(JSON.stringify({ label: ["scalelab.cluster=swarm-local", "scalelab.swarm-role=node"] }));
  const { body } = await docker("GET", `/containers/json?filters=${filters}`);
  return (body as { Names: string[]; NetworkSettings: { Networks: Record<string, { IPAddress: string }> } }[])
    .map((c) => ({
      name: c.Names[0]!.replace(/^\/scalelab-swarm-/, ""),
      endpoint: `tcp://${Object.values(c.NetworkSettings.Networks)[0]!.IPAddress}:2375`,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

async function chooseEngine(page: Page, name: string) {
  await page.goto("/runs/new");
  await expect(page.getByTestId("field-engine")).toBeVisible();
  await page.getByTestId("field-engine").selectOption(name);
  await expect(page.getByTestId("section-placement")).toBeVisible();
}

test("an engine that does not answer is offered as unreachable, and starting a run on it says why", async ({ page }) => {
  const name = `e2e-down-${suffix}`;
  // The host's own engine is no swarm manager: listing its nodes fails.
  await store(engine(name, [{ name: "node1", endpoint: "unix:///var/run/docker.sock" }]));
  await page.goto("/runs/new");
  await expect(page.getByTestId("section-placement")).toHaveCount(0);
  const option = page.getByTestId("field-engine").locator(`option[value="${name}"]`);
  await expect(option).toHaveText(new RegExp(`^${name} — unreachable: .*swarm manager`, "i"));

  await chooseEngine(page, name);
  // One pin per role of the run on screen; no node to offer.
  for (const role of ["app", "lb", "loadgen"]) await expect(page.getByTestId(`field-pin-${role}`)).toHaveValue("");
  await page.getByTestId("submit-run").click();
  await expect(page.getByTestId("form-errors")).toContainText(`engine ${name} is not reachable`);
  await expect(page).toHaveURL(/\/runs\/new$/);
});

test("on a Swarm cluster the hints and errors are the nodes' own, and the pins offer its nodes", async ({ page }) => {
  const nodes = await swarmNodes();
  // scripts/test.sh starts the test cluster before the e2e lane; without it this test fails, saying so.
  expect(nodes.length, "no test cluster runs: start one with `bash scripts/swarm.sh up`").toBeGreaterThan(0);
  const name = `e2e-swarm-${suffix}`;
  await store(engine(name, nodes));
  await chooseEngine(page, name);
  const cpus = (await (await page.request.get("/api/v1/engines")).json()) as { name: string; nodes: { cpus: number }[] }[];
  const largest = Math.max(...cpus.find((e) => e.name === name)!.nodes.map((n) => n.cpus));
  await expect(page.locator("#f-cpus-hint")).toContainText(`0.05–${largest}`);
  await expect(page.getByTestId("field-pin-app").locator("option")).toHaveText(["any node", ...nodes.map((n) => n.name)]);

  // Three replicas on three nodes leave none for separate load generators: the checkbox says so.
  await page.getByTestId("field-loadgenSeparate").check();
  await page.getByTestId("submit-run").click();
  await expect(page.getByTestId("error-loadgenSeparate")).toContainText("needs a node free of the system under test");
  await expect(page).toHaveURL(/\/runs\/new$/);
  // A CPU limit beyond every node is refused under its field, naming the node.
  await page.getByTestId("field-cpus").fill(String(largest + 1));
  await page.getByTestId("field-loadgenSeparate").uncheck();
  await page.getByTestId("submit-run").click();
  await expect(page.getByTestId("error-cpus")).toContainText(`(node ${nodes[0]!.name} has`);
});
