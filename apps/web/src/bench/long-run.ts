/**
 * What a 1 h run costs the dashboard: inserts a finished 1 h run (3,600 load samples, per-second
 * resources of its 6 containers, its worker pool's figures, its timeline) and a 60 s run beside it,
 * serves a checkout's built web, and measures in Chromium, per page load, the time from navigation
 * to the moment every chart of the first screen shows its series (drawn by the server's HTML or by
 * Recharts), then is drawn by Recharts, then every chart of the page is, and the JS heap then (used,
 * and after a garbage collection). Prints the medians as a Markdown table.
 *
 *   pnpm --filter @scalelab/web bench:long-run [--loads 7] [--port 3206] [--checkout /path/to/repo] [--warm]
 *
 * `--warm`: every load in one browser context, so its HTTP cache holds the dashboard's JS chunks
 * (a user who has opened the dashboard before); by default each load is a fresh context (a cold cache).
 *
 * DATABASE_URL and REDIS_URL name a migrated database; the web is `next start` of
 * `<checkout>/apps/web/.next` (build it first), started and stopped by this script.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chromium, type Browser, type BrowserContext } from "@playwright/test";
import { createDb, type Db } from "@scalelab/db";
import { ZRunCreate, ZRunSummary } from "@scalelab/scenarios/contract";
import { getEnv } from "../env";

const { values } = parseArgs({
  options: {
    loads: { type: "string", default: "7" },
    port: { type: "string", default: "3206" },
    checkout: { type: "string", default: join(import.meta.dirname, "../../../..") },
    chromium: { type: "string", default: "/usr/bin/chromium" },
    warm: { type: "boolean", default: false },
  },
});
const LOADS = Number(values.loads);
const PORT = Number(values.port);
const URL_BASE = `http://127.0.0.1:${PORT}`;

const LONG = "5ca1ab1e-0000-4000-8000-000000003600";
const SHORT = "5ca1ab1e-0000-4000-8000-000000000060";
const REPLICAS = 4;

/** A small deterministic generator, so that every database gets the same run. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

async function insertRun(db: Db, id: string, seconds: number, seed: number) {
  const rnd = prng(seed);
  await db.run.deleteMany({ where: { id } });
  const def = ZRunCreate.parse({
    name: `bench: ${seconds} s at 32 VUs, ${REPLICAS} replicas`,
    topology: { service: { replicas: REPLICAS, cpus: 0.5, memoryMb: 256, workerPool: 16 } },
    workload: { vus: 32, durationSeconds: seconds },
  });
  const samples = [];
  const containers = [];
  const figures = [];
  let requests = 0;
  let errors = 0;
  for (let t = 0; t < seconds; t++) {
    // A slow drift, noise, now and then a dip (a replica's hiccup) and a latency spike.
    const dip = rnd() < 0.004;
    const rps = Math.round((dip ? 3500 : 9000) + 800 * Math.sin(t / 300) + 400 * (rnd() - 0.5));
    const errs = dip ? Math.round(50 + 200 * rnd()) : rnd() < 0.01 ? 1 : 0;
    const p50 = 2.5 + rnd() * 0.6 + (dip ? 4 : 0);
    const backends: Record<string, number> = {};
    const backendStats: Record<
      string,
      { requests: number; errors: Record<string, number>; latencyMs: { avg: number; max: number; p95: number } | null }
    > = {};
    for (let i = 0; i < REPLICAS; i++) {
      const n = Math.round((rps - errs) / REPLICAS + 40 * (rnd() - 0.5));
      backends[`app-${i}`] = n;
      backendStats[`app-${i}`] = {
        requests: n,
        errors: {},
        latencyMs: { avg: round(p50 * 1.2), max: round(p50 * 12), p95: round(p50 * 3) },
      };
    }
    if (errs > 0) backendStats["no answer"] = { requests: errs, errors: { "502": errs }, latencyMs: null };
    samples.push({
      runId: id,
      t,
      requests: rps,
      errors: errs,
      latAvg: round(p50 * 1.2),
      latP50: round(p50),
      latP90: round(p50 * 2.2),
      latP95: round(p50 * 3),
      latP99: round(p50 * 6 + (rnd() < 0.003 ? 200 : 0)),
      latMax: round(p50 * 14 + rnd() * 40),
      backends,
      backendStats,
      errorKinds: errs > 0 ? { "502": errs } : {},
    });
    requests += rps;
    errors += errs;
    const roles = [
      ...Array.from({ length: REPLICAS }, (_, i) => ({ role: "app", name: `app-${i}`, cpu: 45, mem: 48e6 })),
      { role: "lb", name: "lb-0", cpu: 70, mem: 12e6 },
      { role: "loadgen", name: "loadgen-0", cpu: 85, mem: 90e6 },
    ];
    for (const c of roles) {
      containers.push({
        runId: id,
        t,
        container: `sl-${id.slice(0, 8)}-${c.name}`,
        role: c.role,
        cpuPct: round(c.cpu + 10 * (rnd() - 0.5), 1),
        memBytes: BigInt(Math.round(c.mem + 4e6 * rnd() + t * 1000)),
        throttledPeriods: c.role === "app" ? Math.round(rnd() * 4) : 0,
        throttledMs: c.role === "app" ? round(rnd() * 30, 1) : 0,
        netRxBps: round(rps * (c.role === "app" ? 90 : 360)),
        netTxBps: round(rps * (c.role === "app" ? 180 : 720)),
      });
    }
    figures.push({
      runId: id,
      t,
      figures: { "pool.busy": Math.round(8 + 8 * rnd()), "pool.queued": Math.round(dip ? 40 : 3 * rnd()), "pool.size": 16 * REPLICAS },
    });
  }
  const loadStart = new Date(Date.UTC(2026, 10, 26, 0, 0, 0));
  const summary = ZRunSummary.parse({
    requests,
    rps: round(requests / seconds, 1),
    errors,
    errorRate: round(errors / requests, 5),
    latencyMs: { avg: 3.3, p50: 2.8, p90: 6.2, p95: 8.4, p99: 17.1, max: 260 },
    durationSeconds: seconds,
    backends: Object.fromEntries(Array.from({ length: REPLICAS }, (_, i) => [`app-${i}`, Math.round(requests / REPLICAS)])),
    loadgen: { cpus: 1, medianCpuPct: 85, saturated: false, tool: "k6", instances: 1 },
    pool: { size: 16 * REPLICAS, maxBusy: 16, medianBusy: 12, maxQueued: 40, medianQueued: 1, rejected: 0 },
  });
  await db.run.create({
    data: {
      id,
      name: def.name ?? null,
      status: "succeeded",
      step: "done",
      topology: JSON.parse(JSON.stringify(def.topology)),
      workload: JSON.parse(JSON.stringify(def.workload)),
      faults: [],
      host: { cpus: 2, memoryBytes: 8e9, kernel: "6.1.0", dockerVersion: "28.0.0" },
      summary: JSON.parse(JSON.stringify(summary)),
      createdAt: loadStart,
      startedAt: loadStart,
      loadStartedAt: loadStart,
      finishedAt: new Date(loadStart.getTime() + seconds * 1000),
    },
  });
  await db.runSample.createMany({ data: samples });
  for (let i = 0; i < containers.length; i += 5000) await db.containerSample.createMany({ data: containers.slice(i, i + 5000) });
  await db.figureSample.createMany({ data: figures });
  await db.runEvent.createMany({
    data: Array.from({ length: 40 }, (_, i) => ({ runId: id, step: i < 20 ? "provisioning" : "load", message: `bench event ${i}` })),
  });
}

function startWeb(): ChildProcess {
  const dir = join(values.checkout!, "apps/web");
  // The child inherits DATABASE_URL and REDIS_URL (and SCALELAB_WEB_DIST_DIR, when set).
  const child = spawn(join(dir, "node_modules/.bin/next"), ["start", "-p", String(PORT), "-H", "127.0.0.1"], {
    cwd: dir,
    stdio: ["ignore", "ignore", "inherit"],
  });
  return child;
}

async function waitHttp(url: string, seconds: number) {
  for (let i = 0; i < seconds * 4; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${seconds} s`);
}

type Load = { ms: number; rechartsMs: number; allMs: number; heapMb: number; heapAfterGcMb: number };

/** A chart's series drawn: by Recharts, or in the server's HTML (components/charts.tsx ChartPreview) until Recharts has drawn it. */
const DRAWN = "path.recharts-curve, path.chart-preview-line";
const RECHARTS = "path.recharts-curve";

/**
 * One page load in a fresh context: ms from navigation until every chart of `charts` in the first
 * screen (its top above the viewport's bottom) shows its series, every chart of `charts` being on
 * the page; then until Recharts has drawn each of them (the charts answer the pointer); then,
 * scrolling to each chart not drawn yet in turn, ms until all have drawn (charts below the first
 * screen are drawn when scrolled near).
 */
async function load(browser: Browser, path: string, charts: readonly string[], shared?: BrowserContext): Promise<Load> {
  const context = shared ?? (await browser.newContext({ viewport: { width: 1400, height: 900 } }));
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  // Chromium drops its requests when the host's network interfaces change (Docker creating a
  // container's, while tests run beside): such a load is retried, not waited on for a minute.
  const networkChanged = new Promise<never>((_, reject) =>
    page.on("requestfailed", (r) => {
      if (r.failure()?.errorText.includes("ERR_NETWORK_CHANGED")) reject(new NetworkChanged(r.url()));
    }),
  );
  networkChanged.catch(() => {});
  await page.goto(URL_BASE + path, { waitUntil: "commit" });
  const firstScreen = async (drawn: string) => {
    const handle = await Promise.race([
      networkChanged,
      page.waitForFunction(
        ([ids, sel]) => {
          const els = ids.map((id) => document.querySelector(`[data-testid="${id}"]`));
          if (els.some((el) => !el)) return false;
          const first = els.filter((el) => el!.getBoundingClientRect().top < window.innerHeight);
          return first.every((el) => el!.querySelector(sel)) ? performance.now() : false;
        },
        [charts, drawn] as const,
        { polling: "raf", timeout: 60_000 },
      ),
    ]);
    return (await handle.jsonValue()) as number;
  };
  const ms = await firstScreen(DRAWN);
  const rechartsMs = await firstScreen(RECHARTS);
  const all = await page.waitForFunction(
    (ids) => {
      const pending = ids.filter((id) => !document.querySelector(`[data-testid="${id}"] path.recharts-curve`));
      if (pending.length === 0) return performance.now();
      document.querySelector(`[data-testid="${pending[0]}"]`)?.scrollIntoView();
      return false;
    },
    charts,
    { polling: "raf", timeout: 60_000 },
  );
  const allMs = (await all.jsonValue()) as number;
  const heap = async () => {
    const { metrics } = await cdp.send("Performance.getMetrics");
    return (metrics.find((m) => m.name === "JSHeapUsedSize")?.value ?? NaN) / 1e6;
  };
  const heapMb = await heap();
  await cdp.send("HeapProfiler.collectGarbage");
  const heapAfterGcMb = await heap();
  await (shared ? page.close() : context.close());
  return { ms, rechartsMs, allMs, heapMb, heapAfterGcMb };
}

class NetworkChanged extends Error {}

/** A load, again when Chromium dropped its requests for a network change (at most 3 times), each retry reported. */
async function loadOnce(browser: Browser, path: string, charts: readonly string[], shared?: BrowserContext): Promise<Load> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await load(browser, path, charts, shared);
    } catch (err) {
      if (!(err instanceof NetworkChanged) || attempt === 3) throw err;
      console.error(`${path}: the network changed during the load (${err.message}); loading again`);
    }
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const RUN_CHARTS = [
  "chart-rps",
  "chart-latency",
  "chart-errors",
  "chart-pool",
  "chart-cpu",
  "chart-throttled",
  "chart-memory",
  "chart-net-rx",
  "chart-net-tx",
  "chart-backends",
  "chart-imbalance",
  "chart-error-kinds",
];
const COMPARE_CHARTS = ["compare-chart-rps", "compare-chart-p95"];

async function main() {
  const env = getEnv();
  const db = createDb(env.DATABASE_URL);
  const t0 = performance.now();
  await insertRun(db, LONG, 3600, 1);
  await insertRun(db, SHORT, 60, 2);
  console.error(`inserted the runs in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await db.$disconnect();

  const web = startWeb();
  const browser = await chromium.launch({
    executablePath: values.chromium,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
  try {
    await waitHttp(`${URL_BASE}/api/v1/runs/${LONG}`, 60);
    const pages = [
      { what: "run page, 1 h run", path: `/runs/${LONG}`, charts: RUN_CHARTS },
      { what: "compare, 1 h run and a 60 s run", path: `/compare?ids=${LONG},${SHORT}`, charts: COMPARE_CHARTS },
      // The floor: the same page of a run of 60 seconds.
      { what: "run page, 60 s run (reference)", path: `/runs/${SHORT}`, charts: RUN_CHARTS.filter((c) => c !== "chart-error-kinds") },
    ];
    const rows: string[] = [];
    const shared = values.warm ? await browser.newContext({ viewport: { width: 1400, height: 900 } }) : undefined;
    for (const p of pages) {
      await loadOnce(browser, p.path, p.charts, shared); // warm-up: the server's first render of the route (and, --warm, the cache)
      const loads: Load[] = [];
      for (let i = 0; i < LOADS; i++) loads.push(await loadOnce(browser, p.path, p.charts, shared));
      const ms = loads.map((l) => l.ms);
      const rechartsMs = loads.map((l) => l.rechartsMs);
      const allMs = loads.map((l) => l.allMs);
      const list = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(", ");
      console.error(`${p.what}: ${list(ms)} ms; Recharts: ${list(rechartsMs)} ms; all: ${list(allMs)} ms`);
      const range = (xs: number[]) => `${(Math.min(...xs) / 1000).toFixed(2)}–${(Math.max(...xs) / 1000).toFixed(2)} s`;
      rows.push(
        `| ${p.what} | ${(median(ms) / 1000).toFixed(2)} s | ${range(ms)} | ${(median(rechartsMs) / 1000).toFixed(2)} s | ${range(rechartsMs)} | ${(median(allMs) / 1000).toFixed(2)} s | ${range(allMs)} | ${median(loads.map((l) => l.heapMb)).toFixed(0)} MB | ${median(loads.map((l) => l.heapAfterGcMb)).toFixed(0)} MB |`,
      );
    }
    console.log(
      `| page | first screen's charts shown (median of ${LOADS}) | range | drawn by Recharts | range | all charts, scrolled to | range | JS heap used then | after a GC |`,
    );
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const r of rows) console.log(r);
  } finally {
    await browser.close();
    web.kill("SIGTERM");
  }
}

await main();
