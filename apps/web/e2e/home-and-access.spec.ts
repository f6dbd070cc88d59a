import AxeBuilder from "@axe-core/playwright";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { waitForRunEnd } from "./helpers";

// The first run of a fresh machine may build the lab images.
const RUN_TIMEOUT = 6 * 60_000;
const WIDTHS = [390, 1400] as const;
const URL_OF_RUN = /\/runs\/([0-9a-f-]{36})$/;

/** What the pages below show: two finished runs, a failed one and an experiment. */
type Data = { run: string; other: string; failed: string; experiment: string; experimentName: string; thresholds: string };
let data: Data | undefined;

// The suite's own when earlier specs left them (made here only on a database without them), so
// that the pages cost the suite no run; found again when a failed test restarts the worker.
test.beforeAll(async ({ playwright }, testInfo) => {
  test.setTimeout(2 * RUN_TIMEOUT);
  const request = await playwright.request.newContext({ baseURL: testInfo.project.use.baseURL });
  data = await findOrMake(request);
  await request.dispose();
});

type Listed = { id: string; name?: string | null; status: string; thresholds?: unknown[] };

async function findOrMake(request: APIRequestContext): Promise<Data> {
  const runs = async () => ((await (await request.get("/api/v1/runs?limit=500")).json()) as { items: Listed[] }).items;
  const start = async (body: object) => {
    const res = await request.post("/api/v1/runs", { data: body });
    expect(res.status(), await res.text()).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };

  let succeeded = (await runs()).filter((r) => r.status === "succeeded").map((r) => r.id);
  while (succeeded.length < 2) {
    const id = await start({
      name: "e2e access: a short run",
      topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 2, cpus: 0.5, memoryMb: 128 } },
      workload: { endpoint: "hostname", vus: 2, durationSeconds: 5 },
    });
    expect((await waitForRunEnd(request, id, RUN_TIMEOUT)).status).toBe("succeeded");
    succeeded = [...succeeded, id];
  }

  // A run with thresholds, one passing and one failing (run-and-compare's form run has them).
  let thresholds = (await runs()).find((r) => r.status === "succeeded" && (r.thresholds?.length ?? 0) > 0)?.id;
  if (!thresholds) {
    thresholds = await start({
      name: "e2e access: thresholds",
      topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 1, cpus: 0.5, memoryMb: 128 } },
      workload: { endpoint: "hostname", vus: 2, durationSeconds: 5 },
      thresholds: [
        { metric: "p95", op: "<", value: 10000 },
        { metric: "max", op: "<", value: 0.001 },
      ],
    });
    expect((await waitForRunEnd(request, thresholds, RUN_TIMEOUT)).status).toBe("succeeded");
  }

  // An image the engine does not have: the run fails before any container starts.
  let failed = (await runs()).find((r) => r.status === "failed")?.id;
  if (!failed) {
    failed = await start({
      name: "e2e access: a missing image",
      topology: { balancer: { kind: "none" }, service: { kind: "image", image: "scalelab-e2e/missing-image:1" } },
      workload: { request: { method: "GET", path: "/" }, vus: 1, durationSeconds: 5 },
    });
    expect((await waitForRunEnd(request, failed, RUN_TIMEOUT)).status).toBe("failed");
  }

  const experiments = ((await (await request.get("/api/v1/experiments")).json()) as { items: Listed[] }).items;
  let experiment = experiments.find((e) => e.status === "succeeded")?.id;
  let experimentName = experiments.find((e) => e.id === experiment)?.name ?? "";
  if (!experiment) {
    const created = await request.post("/api/v1/experiments", {
      data: {
        name: "e2e access: replicas 1 and 2",
        base: {
          topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 1, cpus: 0.5, memoryMb: 128 } },
          workload: { endpoint: "hostname", vus: 2, durationSeconds: 5 },
        },
        sweep: [{ field: "topology.service.replicas", values: [1, 2] }],
        repetitions: 1,
        settleSeconds: 0,
      },
    });
    expect(created.status(), await created.text()).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    await expect
      .poll(async () => ((await (await request.get(`/api/v1/experiments/${id}`)).json()) as Listed).status, {
        timeout: 2 * RUN_TIMEOUT,
        intervals: [2_000],
      })
      .toBe("succeeded");
    experiment = id;
    experimentName = "e2e access: replicas 1 and 2";
  }
  return { run: succeeded[0]!, other: succeeded[1]!, failed, experiment, experimentName, thresholds };
}

test("the home page says what the lab answers, lists the presets and the latest work, and starts a first run in two clicks", async ({
  page,
  request,
}) => {
  test.setTimeout(RUN_TIMEOUT + 60_000);
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("scaling");
  const presets = (await (await request.get("/api/v1/presets")).json()) as { name: string }[];
  expect(presets.length).toBeGreaterThan(0);
  await expect(page.getByTestId("home-preset")).toHaveCount(presets.length);
  for (const p of presets) {
    await expect(page.locator(`[data-testid="home-preset"][data-preset="${p.name}"] a`)).toHaveAttribute("href", `/presets#${p.name}`);
  }
  await expect(page.getByTestId("home-experiment").first()).toBeVisible();

  // Click 1: the form, filled in with the small first run.
  await page.getByTestId("start-first-run").click();
  await page.waitForURL(/\/runs\/new\?first=1$/);
  await expect(page.getByTestId("field-name")).toHaveValue("My first run");
  await expect(page.getByTestId("field-replicas")).toHaveValue("2");
  await expect(page.getByTestId("field-durationSeconds")).toHaveValue("8");
  // Click 2: Start.
  await page.getByTestId("submit-run").click();
  await page.waitForURL(URL_OF_RUN);
  const run = URL_OF_RUN.exec(new URL(page.url()).pathname)![1]!;
  const ended = await waitForRunEnd(request, run, RUN_TIMEOUT);
  expect(ended.status, `the first run ${run} ended as ${ended.status}`).toBe("succeeded");

  // The home page lists it first among the latest runs.
  await page.goto("/");
  await expect(page.getByTestId("home-run").first()).toHaveAttribute("data-run-id", run);
});

/**
 * Every page, each with what shows that it has loaded.
 */
const PAGES: { name: string; path: (d: Data) => string; ready?: string }[] = [
  { name: "home", path: () => "/", ready: "home-runs" },
  { name: "runs", path: () => "/runs", ready: "runs-table" },
  { name: "new run", path: () => "/runs/new", ready: "run-form" },
  { name: "new run on an image", path: () => "/runs/new?kind=image", ready: "run-form" },
  { name: "a finished run", path: (d) => `/runs/${d.run}`, ready: "summary-table" },
  { name: "a failed run", path: (d) => `/runs/${d.failed}`, ready: "run-error" },
  { name: "a run with thresholds", path: (d) => `/runs/${d.thresholds}`, ready: "thresholds" },
  { name: "compare", path: (d) => `/compare?ids=${d.run},${d.other}`, ready: "compare-table" },
  { name: "experiments", path: () => "/experiments", ready: "experiments-table" },
  { name: "new experiment", path: () => "/experiments/new", ready: "experiment-form" },
  { name: "an experiment", path: (d) => `/experiments/${d.experiment}`, ready: "variant-stats" },
  { name: "presets", path: () => "/presets", ready: "presets" },
  {
    name: "an experiment name's history",
    path: (d) => `/history?name=${encodeURIComponent(d.experimentName)}&kind=experiment`,
    ready: "history-point",
  },
  { name: "API reference", path: () => "/reference" },
];

/** The rules whose outcome depends on colours: the only ones a change of colour scheme can change. */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

/**
 * Serious and critical axe violations of the page as it is, one line per rule and element. Legacy
 * mode runs axe in the page itself (the pages have no frames), without the blank page the default
 * mode opens for every check: a third to half of the time here.
 */
async function violations(page: Page, where: string, only?: readonly string[]): Promise<string[]> {
  const axe = new AxeBuilder({ page }).setLegacyMode(true);
  const result = await (only ? axe.withRules([...only]) : axe).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) =>
      v.nodes.map((n) => `${where}: ${v.id} (${v.impact}) ${n.target.join(" ")} — ${n.failureSummary?.replace(/\s+/g, " ")}`),
    );
}

/** Cards (`.panel`) that do not scroll and whose content is wider than they are: a table sticking out. */
const stickingOut = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>(".panel")]
      .filter((p) => getComputedStyle(p).overflowX === "visible" && p.scrollWidth > p.clientWidth + 1)
      .map((p) => `${p.querySelector("h2")?.textContent ?? p.dataset.testid ?? p.className}: ${p.scrollWidth} px in ${p.clientWidth} px`),
  );

/**
 * Until the browser has laid the page out again (after a change of size or colour scheme), and every
 * scroll region that overflows has become a tab stop (components/scroll-region.tsx). A server-rendered
 * page (the run page) is on screen before React hydrates it, and only the browser can tell what
 * overflows: axe must not run in between.
 */
const settled = async (page: Page) => {
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await expect
    .poll(() =>
      page.evaluate(() =>
        [...document.querySelectorAll<HTMLElement>("[data-scroll-region]")]
          .filter((el) => (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) && !el.hasAttribute("tabindex"))
          .map((el) => el.className),
      ),
    )
    .toEqual([]);
};

for (const p of PAGES) {
  test(`axe finds no serious or critical violation on ${p.name}, at 390 and 1,400 px, light and dark; nothing wider than the window or its card`, async ({
    page,
  }) => {
    test.setTimeout(90_000);
    expect(data, "beforeAll found or made the data").toBeDefined();
    const path = p.path(data!);
    await page.setViewportSize({ width: WIDTHS[0], height: 900 });
    const res = await page.goto(path);
    expect(res?.status(), `GET ${path}`).toBe(200);
    if (p.ready) await expect(page.getByTestId(p.ready).first()).toBeVisible();
    await expect(page.locator("main")).not.toContainText("Loading…");
    const found: string[] = [];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: "light" });
      await settled(page);
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(scrollWidth, `${path} is ${scrollWidth} px wide at ${width} px`).toBeLessThanOrEqual(width);
      expect(await stickingOut(page), `${path} at ${width} px: cards whose content sticks out`).toEqual([]);
      // Every rule in the light scheme; in the dark one the DOM is the same, only the colours differ.
      found.push(...(await violations(page, `${width} px, light`)));
      await page.emulateMedia({ colorScheme: "dark" });
      await settled(page);
      found.push(...(await violations(page, `${width} px, dark`, COLOUR_RULES)));
    }
    expect(found, `axe on ${path}:\n${found.join("\n")}`).toEqual([]);
  });
}
