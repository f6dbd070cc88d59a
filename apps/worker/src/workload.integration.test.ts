import { ZRunSummary, TRunCreateInput } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { useLabWorker } from "./testing/lab";

/*
 * The user's workload for real, through the queue and the worker, against the real Docker engine,
 * Postgres, Redis, k6 and wrk: workload.request (k6 and wrk), a weighted mix, the user's own k6
 * script with checks and a custom metric, and a script that does not compile. Two testbed replicas
 * behind nginx, short loads.
 */
const ctx = useLabWorker("workload");

const TOPOLOGY: TRunCreateInput["topology"] = {
  balancer: { kind: "nginx", algorithm: "round_robin" },
  service: { replicas: 2, memoryMb: 64 },
};

async function run(workload: TRunCreateInput["workload"], expectSuccess = true) {
  const id = await ctx.lab.createRun({ name: `workload ${JSON.stringify(workload).slice(0, 80)}`, topology: TOPOLOGY, workload });
  const row = await ctx.lab.finished(id);
  const events = (await ctx.lab.db.runEvent.findMany({ where: { runId: id }, orderBy: { id: "asc" } })).map((e) => e.message);
  expect(await ctx.lab.leftovers(id)).toEqual([]);
  if (!expectSuccess) return { row, events, summary: undefined };
  expect(row.error, events.join("\n")).toBeNull();
  expect(row.status).toBe("succeeded");
  const summary = ZRunSummary.parse(row.summary);
  console.log(
    `${JSON.stringify(workload).slice(0, 120)}: ${summary.requests} requests, ${summary.errors} errors, ${JSON.stringify(summary.backends)}`,
  );
  return { row, events, summary };
}

/** Both replicas answered, and the per-backend counts add up to the run's requests. */
function expectBothReplicas(summary: ReturnType<typeof ZRunSummary.parse>) {
  const backends = summary.backends ?? {};
  expect(Object.keys(backends).sort()).toEqual(["app-0", "app-1"]);
  expect(backends["app-0"]! + backends["app-1"]!).toBe(summary.requests);
  for (const n of Object.values(backends)) expect(n).toBeGreaterThan(summary.requests * 0.4);
}

describe("workload.request", () => {
  it("k6 sends the request template (GET /cpu) through the balancer", async () => {
    const { summary, events } = await run({ request: { method: "GET", path: "/cpu" }, vus: 2, durationSeconds: 5 });
    expect(summary!.requests).toBeGreaterThan(20);
    // A path the testbed does not serve would answer 404: every request here found /cpu.
    expect(summary!.errors).toBe(0);
    expectBothReplicas(summary!);
    expect(events).toContainEqual(expect.stringMatching(/^warm-up: [1-9]\d* requests in [\d.]+ s, 0 errors$/));
  });

  it("wrk sends it from its Lua script, headers with quotes and non-ASCII included", async () => {
    const { summary } = await run({
      loadgen: "wrk",
      connections: 4,
      durationSeconds: 5,
      request: { method: "GET", path: "/cpu?from=wrk", headers: { "X-Note": 'é "quoted" \\ ]]' } },
    });
    expect(summary!.requests).toBeGreaterThan(20);
    expect(summary!.errors).toBe(0);
    expectBothReplicas(summary!);
  });

  it("a wrk request to a path the testbed does not serve fails every request: the path is the script's", async () => {
    const { summary } = await run({ loadgen: "wrk", connections: 2, durationSeconds: 5, request: { method: "GET", path: "/nowhere" } });
    expect(summary!.requests).toBeGreaterThan(20);
    expect(summary!.errors).toBe(summary!.requests);
  });
});

describe("workload.requests", () => {
  it("sends a 3:1 mix in proportion to its weights", async () => {
    // The testbed answers /hostname and 404s /missing: the error share is the second entry's share of the mix.
    const { summary } = await run({
      requests: [
        { method: "GET", path: "/hostname", weight: 3 },
        { method: "GET", path: "/missing", weight: 1 },
      ],
      vus: 2,
      durationSeconds: 5,
    });
    expect(summary!.requests).toBeGreaterThan(1000);
    expect(summary!.errorRate).toBeGreaterThan(0.22);
    expect(summary!.errorRate).toBeLessThan(0.28);
    expectBothReplicas(summary!);
  });
});

describe("workload.script", () => {
  it("runs the user's script with its own scenarios: checks, a custom Counter and per-backend counts", async () => {
    const script = `import http from "k6/http";
import { check } from "k6";
import { Counter } from "k6/metrics";

const pages = new Counter("pages_seen");

export const options = {
  scenarios: { browse: { executor: "constant-vus", vus: 2, duration: "6s", exec: "browse" } },
  thresholds: { checks: ["rate>0.99"] },
};

export function browse() {
  const res = http.get(\`\${__ENV.SCALELAB_TARGET}/hostname\`);
  check(res, {
    "status is 200": (r) => r.status === 200,
    "names a replica": (r) => /^app-\\d$/.test(String(r.headers["X-Backend"])),
  });
  pages.add(1);
}
`;
    const { summary, events } = await run({ script, durationSeconds: 30 });
    expect(events).toContainEqual(expect.stringMatching(/^workload\.script compiles: k6 script \([\d.]+ KB; scenarios from the script\)/));
    expect(events).toContainEqual(expect.stringMatching(/threshold\(s\) are not evaluated/));
    const s = summary!;
    expect(s.script?.ownScenarios).toBe(true);
    expect(s.script!.checks).toEqual([
      { name: "status is 200", passed: s.requests, failed: 0 },
      { name: "names a replica", passed: s.requests, failed: 0 },
    ]);
    expect(s.script!.metrics).toEqual([{ name: "pages_seen", type: "counter", values: { count: s.requests, rate: expect.any(Number) } }]);
    expectBothReplicas(s);
    // The load lasted as long as the script's scenario, not workload.durationSeconds.
    expect(s.durationSeconds).toBeGreaterThanOrEqual(5);
    expect(s.durationSeconds).toBeLessThanOrEqual(7);
    expect(s.loadgen?.medianCpuPct).toBeDefined();
  });

  it("runs a script without scenarios in the lab's scenario, split over two k6 instances by execution segments", async () => {
    const script = `import http from "k6/http";
import { check } from "k6";

export const options = { vus: 50, duration: "10m" };

export default function () {
  check(http.get(\`\${__ENV.SCALELAB_TARGET}/hostname\`), { "status is 200": (r) => r.status === 200 });
}
`;
    const { summary, events } = await run({ script, vus: 2, durationSeconds: 5, loadgenInstances: 2 });
    expect(events).toContainEqual(expect.stringMatching(/^workload\.script compiles: k6 script \([\d.]+ KB; the lab's scenario\)$/));
    const s = summary!;
    expect(s.script?.ownScenarios).toBe(false);
    // The script's vus and duration gave way to the workload's: 5 s, both instances' checks added up.
    expect(s.durationSeconds).toBe(5);
    expect(s.loadgen).toMatchObject({ instances: 2, percentiles: "merged" });
    expect(s.script!.checks).toEqual([{ name: "status is 200", passed: s.requests, failed: 0 }]);
    expect(s.script!.metrics).toEqual([]);
    expectBothReplicas(s);
  });

  it("a script that does not compile fails the run before any container of the topology starts, with k6's line", async () => {
    const script = `import http from "k6/http";\nexport default function () {\n  const x = ;\n}\n`;
    const { row, events } = await run({ script, vus: 1, durationSeconds: 5 }, false);
    expect(row.status).toBe("failed");
    expect(row.error).toMatch(/^workload\.script does not compile: file:\/\/\/scalelab\/user\.js: Line 3:\d+ Unexpected token/);
    expect(row.step).toBe("preparing_images");
    // Teardown found nothing of the run: the check's own container was removed, no network was made.
    expect(events).toContainEqual("removed 0 container(s) and 0 network(s)");
    expect(events.some((e) => /^starting /.test(e))).toBe(false);
  });

  it("refuses a script with neither its own scenarios nor workload.vus, naming workload.vus", async () => {
    const { row } = await run({ script: `import http from "k6/http";\nexport default function () {}\n`, durationSeconds: 5 }, false);
    expect(row.status).toBe("failed");
    expect(row.error).toMatch(/workload\.script declares no options\.scenarios: give workload\.vus/);
  });
});
