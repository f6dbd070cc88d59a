import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { createDb, type Db } from "@scalelab/db";
import { explicitBalancer } from "@scalelab/scenarios/components";
import { ZRunCreate } from "@scalelab/scenarios/contract";
import { e2eEnv } from "./env";
import { uniqueName } from "./helpers";

/*
 * Ten finished runs are inserted into the test database with their samples, rather than run: ten
 * real runs would take about 3.5 minutes of the suite. Their summaries are two recorded real runs
 * (experiment 1: one replica and four replicas on the 2-core host, from the findings' fixtures),
 * each repeated five times with a spread of ±3 %, as five repetitions of a variant give.
 */
const FIXTURES = new URL("../../../packages/scenarios/src/analysis/fixtures/findings/", import.meta.url);
const SPREAD = [0.97, 1, 1.03, 0.99, 1.02];
const HOST = { cpus: 2, memoryBytes: 8 * 1024 ** 3, kernel: "6.1", dockerVersion: "27.0" };

type Recorded = { summary: { rps: number; durationSeconds: number; latencyMs: Record<string, number> } & Record<string, unknown> };
const recorded = (name: string) => JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), "utf8")) as Recorded;

function definition(replicas: number) {
  const run = ZRunCreate.parse({
    topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas } },
    workload: { loadgen: "wrk", connections: 100, threads: 1, endpoint: "hostname", durationSeconds: 20 },
  });
  return { topology: { ...run.topology, balancer: explicitBalancer(run.topology.balancer) }, workload: run.workload, faults: run.faults };
}

async function insertRun(db: Db, name: string, replicas: number, fixture: Recorded, factor: number): Promise<string> {
  const id = randomUUID();
  const { summary } = fixture;
  const latencyMs = Object.fromEntries(Object.entries(summary.latencyMs).map(([k, v]) => [k, v / factor]));
  const rps = summary.rps * factor;
  const def = definition(replicas);
  const now = new Date();
  await db.run.create({
    data: {
      id,
      name,
      status: "succeeded",
      step: "done",
      topology: def.topology,
      workload: def.workload,
      faults: def.faults,
      host: HOST,
      summary: { ...summary, rps, requests: Math.round(rps * summary.durationSeconds), latencyMs },
      startedAt: now,
      loadStartedAt: now,
      finishedAt: now,
    },
  });
  await db.runSample.createMany({
    data: Array.from({ length: 8 }, (_, t) => ({
      runId: id,
      t,
      requests: Math.round(rps),
      errors: 0,
      latAvg: latencyMs.avg!,
      latP50: latencyMs.p50!,
      latP90: latencyMs.p90!,
      latP95: latencyMs.p95!,
      latP99: latencyMs.p99!,
      latMax: latencyMs.max!,
    })),
  });
  return id;
}

let db: Db;
const inserted: string[] = [];

test.beforeAll(() => {
  db = createDb(e2eEnv().DATABASE_URL);
});

test.afterAll(async () => {
  await db.run.deleteMany({ where: { id: { in: inserted } } });
  await db.$disconnect();
});

test("a compare of 10 runs gives a verdict per figure with its reasons, against the baseline chosen on the page", async ({ page }) => {
  const name = uniqueName("e2e ten");
  const one = recorded("exp1--1-replica");
  const four = recorded("exp1--4-replicas");
  // Interleaved, as an experiment runs them: A, B, A, B, …
  for (const factor of SPREAD) {
    inserted.push(await insertRun(db, `${name} · 1 replica`, 1, one, factor));
    inserted.push(await insertRun(db, `${name} · 4 replicas`, 4, four, factor));
  }
  const [firstOne, firstFour] = inserted;

  await page.goto(`/compare?ids=${inserted.join(",")}`);
  await expect(page.getByRole("heading", { name: "Compare 10 runs" })).toBeVisible();
  await expect(page.getByTestId("compare-run-header")).toHaveCount(10);
  await expect(page.getByTestId("compare-baseline")).toHaveValue(firstOne!);

  // Two sides of five repetitions each: a tested verdict, with its interval and p-value, and no "cannot tell".
  const verdicts = page.getByTestId("compare-verdicts");
  await expect(verdicts.getByRole("heading")).toHaveText(`Verdict against A: ${name} · 1 replica (5 runs)`);
  await expect(verdicts.getByTestId("verdict-header")).toHaveText([`B: ${name} · 4 replicas (5 runs) vs A`]);
  await expect(page.getByTestId("compare-single")).toHaveCount(0);
  const rps = page.getByTestId("verdict-rps").getByTestId("verdict-cell");
  await expect(rps).toHaveAttribute("data-verdict", "worse");
  await expect(rps).toContainText(/^worse \u2212\d+\.\d % \(95 % CI \u2212\d+\.\d % to \u2212\d+\.\d %, p [<=] 0\.\d+\)$/);
  await expect(page.getByTestId("verdict-latency.p95").getByTestId("verdict-cell")).toHaveAttribute("data-verdict", "worse");
  await expect(page.getByTestId("verdict-errors").getByTestId("verdict-cell")).toHaveAttribute("data-verdict", "not_distinguishable");

  // The reasons: the four replicas' runs saturated the host's cores, the one replica's did not.
  const saturated = page.getByTestId("reason-host_cpu_saturated");
  await expect(saturated).toHaveAttribute("data-differs", "true");
  await expect(saturated.locator(`[data-testid="reason-cell"][data-run-id="${firstFour}"]`)).toContainText(
    "The host's 2 cores were saturated",
  );
  await expect(saturated.locator(`[data-testid="reason-cell"][data-run-id="${firstOne}"]`)).toHaveText("—");

  // A run of the other side as the baseline turns the verdicts around.
  await page.getByTestId("compare-baseline").selectOption(firstFour!);
  await page.waitForURL(new RegExp(`baseline=${firstFour}`));
  await expect(verdicts.getByRole("heading")).toHaveText(`Verdict against B: ${name} · 4 replicas (5 runs)`);
  await expect(rps).toHaveAttribute("data-verdict", "better");
  await expect(rps).toContainText(/^better \+\d+\.\d % /);
  await expect(page.getByTestId("ratio-header").first()).toHaveText(`${name} · 1 replica / ${name} · 4 replicas`);
});

test("bad input on the compare page is a sentence naming the field and its range, never raw validation JSON", async ({ page }) => {
  const ids = Array.from({ length: 21 }, () => randomUUID());
  await page.goto(`/compare?ids=${ids.join(",")}`);
  await expect(page.getByTestId("compare-error")).toHaveText("Could not compare: ids must name between 2 and 20 runs.");

  await page.goto(`/compare?ids=${ids[0]},${ids[1]}`);
  await expect(page.getByTestId("compare-error")).toHaveText(
    `Could not compare: ids must name existing runs; no run has the id ${ids[0]}, ${ids[1]}.`,
  );

  await page.goto(`/compare?ids=${ids[0]},${ids[1]}&baseline=${ids[2]}`);
  await expect(page.getByTestId("compare-error")).toHaveText(`Could not compare: baseline must be one of ids; got ${ids[2]}.`);
});
