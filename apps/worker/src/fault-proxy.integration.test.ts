import { randomUUID } from "node:crypto";
import { Agent, request } from "node:http";
import { ensureImages, ImageProgress } from "@scalelab/images";
import { buildPlan, LABELS, requiredImages, PlannedContainer, RunPlan } from "@scalelab/scenarios/plan";
import { ZRunCreate } from "@scalelab/scenarios/contract";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instanceId, parseEnv } from "./env";
import { createLogger, errorMessage } from "./log";
import { DEFAULT_TIMEOUTS, PipelineDeps, RunContext } from "./pipeline/context";
import { provision, waitHealthy } from "./pipeline/provision";
import { RunReporter } from "./pipeline/reporter";
import { applyNetworkFault, clearNetworkFaults, listToxics, toxiproxyUrl } from "./pipeline/toxiproxy";
import { DockerProvisioner } from "./provisioner/docker";
import { StartedContainer } from "./provisioner/types";
import { waitFor } from "./testing/lab";

/*
 * The network-fault proxy for real, against the real Docker engine (never mocked): a run of two
 * testbed replicas behind nginx with a network fault on app-0, planned by buildPlan, its images
 * built by the worker's image preparation, started tier by tier by the pipeline's provisioning,
 * then each toxiproxy action applied through the worker's client and measured from the host.
 * Docker missing fails the suite; nothing is skipped.
 */
const env = parseEnv();
const docker = new Docker({ socketPath: env.SCALELAB_DOCKER_SOCKET });
const provisioner = new DockerProvisioner(docker);
const log = createLogger("fault-proxy");
const runId = randomUUID();
const controller = new AbortController();

const run = ZRunCreate.parse({
  name: "integration: network-fault proxy",
  topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 2, memoryMb: 64 } },
  workload: { endpoint: "hostname", vus: 1, durationSeconds: 60 },
  faults: [
    { at: 1, action: "delay", ms: 200, target: { role: "app", index: 0 } },
    { at: 2, action: "clear", target: { role: "app", index: 0 } },
  ],
});

let plan: RunPlan;
let started: Map<string, StartedContainer>;
let lbUrl: string;
let proxyIp: string;
let api: string;
let proxies: string[];
let app0: StartedContainer;
let app0Ip: string;

const report = {
  detail: async () => undefined,
  event: async (_level: string, message: string) => log.info(message),
} as unknown as RunReporter;
const deps = {
  docker,
  provisioner,
  instance: instanceId(env),
  log,
  timeouts: { ...DEFAULT_TIMEOUTS, healthyMs: 60_000 },
} as unknown as PipelineDeps;
const ctx: RunContext = { runId, run, deps, report, signal: controller.signal };

const byName = (name: string): PlannedContainer => plan.containers.find((c) => c.name === name)!;
const ipOf = async (name: string) => (await provisioner.inspect(started.get(name)!.id, plan.network.name)).ip;

beforeAll(async () => {
  try {
    await docker.ping();
  } catch (err) {
    throw new Error(`the fault-proxy integration test needs Docker at ${env.SCALELAB_DOCKER_SOCKET}: ${errorMessage(err)}`);
  }
  const names = requiredImages(run);
  const t0 = Date.now();
  const images = await ensureImages(docker, names, {
    onProgress: (p: ImageProgress) => {
      if (p.image === "toxiproxy") log.info(`toxiproxy image: ${p.phase} ${p.message}`);
    },
  });
  log.info(`images ${names.join(", ")} ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  plan = buildPlan({ runId, instance: instanceId(env), run, images });
  const t1 = Date.now();
  const provisioned = await provision(ctx, plan);
  started = provisioned.started;
  const { entryUrl } = await waitHealthy(ctx, plan, provisioned.last, started);
  log.info(`topology (2 replicas, 1 proxy, nginx) up in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  lbUrl = entryUrl;
  const fp = plan.faultProxies[0]!;
  proxies = fp.proxies;
  proxyIp = await ipOf(fp.container);
  api = toxiproxyUrl(`${proxyIp}:${fp.apiPort}`);
  app0 = started.get(plan.containers.find((c) => c.role === "app" && c.hostname === "app-0")!.name)!;
  app0Ip = await ipOf(app0.name);
});

afterAll(async () => {
  controller.abort();
  const removed = await provisioner.removeByLabel({ [LABELS.run]: runId });
  log.info(`removed ${removed.containers} containers, ${removed.networks} networks`);
  const filters = { label: [`${LABELS.run}=${runId}`] };
  const [containers, networks] = await Promise.all([docker.listContainers({ all: true, filters }), docker.listNetworks({ filters })]);
  expect([...containers.map((c) => c.Names[0]), ...networks.map((n) => n.Name)]).toEqual([]);
});

type Answer = { status: number; backend: string | undefined; upstream: string | undefined; ms: number };

/**
 * One HTTP request, on a new connection unless an agent is given: an answer, or an error with the
 * client's reason (its code, or TIMEOUT).
 */
function get(url: string, opts: { timeoutMs?: number; body?: Buffer; agent?: Agent } = {}): Promise<Answer> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: opts.body ? "POST" : "GET", agent: opts.agent ?? false, timeout: opts.timeoutMs ?? 5_000 },
      (res) => {
        res.resume();
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            backend: res.headers["x-backend"] as string | undefined,
            upstream: res.headers["x-upstream"] as string | undefined,
            ms: performance.now() - start,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(Object.assign(new Error("timed out"), { code: "TIMEOUT" })));
    req.on("error", reject);
    req.end(opts.body);
  });
}

const failure = (p: Promise<unknown>): Promise<string | undefined> =>
  p.then(
    () => undefined,
    (err: NodeJS.ErrnoException) => err.code ?? err.message,
  );

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Round robin through nginx: about `n` answers of each replica, by backend. */
async function latencies(n: number): Promise<Record<string, Answer[]>> {
  const out: Record<string, Answer[]> = {};
  for (let i = 0; i < n * 2; i++) {
    const a = await get(`${lbUrl}/hostname`);
    expect(a.status).toBe(200);
    (out[a.backend!] ??= []).push(a);
  }
  return out;
}

describe("the network-fault proxy in front of app-0", () => {
  it("is planned and started, ready once every port listens", async () => {
    expect(byName(plan.faultProxies[0]!.container)).toMatchObject({ hostname: "proxy-app-0", aliases: ["app"], tier: 1.5 });
    expect(byName(app0.name).aliases).toEqual([]);
    expect(proxies).toEqual(["app-0-8080", "app-0-9090"]);
    expect((await get(`http://${proxyIp}:8080/hostname`)).backend).toBe("app-0");
    expect(await listToxics(api, proxies[0]!)).toEqual([]);
  });

  it("nginx reaches app-0 only through its proxy", async () => {
    // Docker's DNS answers a container's host name with its address whatever its aliases, so app-0
    // (which keeps its host name for X-Backend) still answers to `app-0`: nginx must dial the
    // proxy's own name, `proxy-app-0` (dialHost in @scalelab/scenarios/components/fault-proxy).
    const conf = byName(plan.containers.find((c) => c.role === "lb")!.name).files[0]!.content;
    expect(conf).toContain("server proxy-app-0:8080");
    const answers = await Promise.all(Array.from({ length: 12 }, () => get(`${lbUrl}/hostname`)));
    const app1Ip = await ipOf(plan.containers.find((c) => c.hostname === "app-1")!.name);
    for (const a of answers.filter((x) => x.backend === "app-1")) expect(a.upstream).toBe(`${app1Ip}:8080`);
    const viaApp0 = answers.filter((a) => a.backend === "app-0").map((a) => a.upstream);
    // Round robin over two servers (per nginx worker): app-0 answers about half, always through its proxy.
    expect(viaApp0.length).toBeGreaterThanOrEqual(3);
    expect(viaApp0, `nginx reached app-0 at ${[...new Set(viaApp0)].join(", ")}; the proxy is ${proxyIp}, app-0 itself ${app0Ip}`).toEqual(
      viaApp0.map(() => `${proxyIp}:8080`),
    );
  });

  it("delay 200 ms: app-0 answers ≥ 200 ms later through its proxy (and through nginx), directly as before; clear brings it back", async () => {
    const through = `http://${proxyIp}:8080/hostname`;
    const direct = `http://${app0Ip}:8080/hostname`;
    const sample = async (url: string) => {
      const ms: number[] = [];
      for (let i = 0; i < 8; i++) ms.push((await get(url)).ms);
      return ms;
    };
    const before = await sample(through);
    const t = performance.now();
    await applyNetworkFault(api, proxies, { action: "delay", ms: 200 }, controller.signal);
    const applyMs = performance.now() - t;
    for (const p of proxies) expect((await listToxics(api, p)).map((x) => x.name)).toEqual(["delay"]);
    const during = await sample(through);
    const duringDirect = await sample(direct);
    const viaLb = await latencies(6);
    const t2 = performance.now();
    await clearNetworkFaults(api, proxies, controller.signal);
    const clearMs = performance.now() - t2;
    const after = await sample(through);
    const added = median(during) - median(before);
    log.info(
      `delay 200 ms (applied in ${applyMs.toFixed(1)} ms, cleared in ${clearMs.toFixed(1)} ms): app-0 through its proxy median ${median(before).toFixed(1)} → ${median(during).toFixed(1)} → ${median(after).toFixed(1)} ms (+${added.toFixed(1)}), directly ${median(duringDirect).toFixed(1)} ms; through nginx ${JSON.stringify(Object.fromEntries(Object.entries(viaLb).map(([k, v]) => [k, v.map((x) => Math.round(x.ms))])))}`,
    );
    expect(Math.min(...during)).toBeGreaterThanOrEqual(200);
    expect(added).toBeGreaterThanOrEqual(200);
    expect(added).toBeLessThan(250);
    expect(median(duringDirect)).toBeLessThan(50);
    expect(median(after)).toBeLessThan(50);
    // Through nginx: app-0's answers through the proxy carry the delay, app-1's do not.
    for (const a of viaLb["app-0"]!.filter((x) => x.upstream === `${proxyIp}:8080`)) expect(a.ms).toBeGreaterThanOrEqual(200);
    expect(median(viaLb["app-1"]!.map((a) => a.ms))).toBeLessThan(100);
    for (const p of proxies) expect(await listToxics(api, p)).toEqual([]);
  });

  it("bandwidth 800 kbps: a 200 KB request takes ≥ 2 s instead of a few ms", async () => {
    // The testbed has no large response; a large request body shows the limit as well (both
    // directions are limited). On a keep-alive connection Go's server reads a body under 256 KB
    // before it answers (with `Connection: close` it answers at once and closes mid-upload).
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const body = Buffer.alloc(200_000, "x");
    const url = `http://${proxyIp}:8080/hostname`;
    const before = await get(url, { body, agent });
    await applyNetworkFault(api, proxies, { action: "bandwidth", kbps: 800 }, controller.signal);
    const during = await get(url, { body, agent, timeoutMs: 10_000 });
    await clearNetworkFaults(api, proxies, controller.signal);
    const after = await get(url, { body, agent });
    agent.destroy();
    log.info(`bandwidth 800 kbps (100 KB/s): 200 KB upload ${before.ms.toFixed(0)} → ${during.ms.toFixed(0)} → ${after.ms.toFixed(0)} ms`);
    // The testbed answers (its 404 for a POST, with X-Backend) only after taking in the body.
    expect(during.backend).toBe("app-0");
    expect(before.ms).toBeLessThan(500);
    expect(during.ms).toBeGreaterThanOrEqual(1_900);
    expect(after.ms).toBeLessThan(500);
  });

  it("reset: every new connection is reset; clear brings app-0 back", async () => {
    await applyNetworkFault(api, proxies, { action: "reset" }, controller.signal);
    const errors = await Promise.all(Array.from({ length: 10 }, () => failure(get(`http://${proxyIp}:8080/hostname`))));
    await clearNetworkFaults(api, proxies, controller.signal);
    log.info(`reset: ${errors.join(", ")}`);
    expect(errors.every((e) => e === "ECONNRESET")).toBe(true);
    expect((await get(`http://${proxyIp}:8080/hostname`)).backend).toBe("app-0");
  });

  it("loss 50 %: about half of the new connections hang; clear brings it back", async () => {
    await applyNetworkFault(api, proxies, { action: "loss", percent: 50 }, controller.signal);
    const results = await Promise.all(
      Array.from({ length: 60 }, () => failure(get(`http://${proxyIp}:8080/hostname`, { timeoutMs: 1_500 }))),
    );
    await clearNetworkFaults(api, proxies, controller.signal);
    const hung = results.filter((r) => r === "TIMEOUT").length;
    log.info(`loss 50 %: ${hung} of 60 connections hung, ${results.filter((r) => r === undefined).length} answered`);
    // Binomial(60, 0.5): 30 ± 3.9; ±3.8σ.
    expect(hung).toBeGreaterThanOrEqual(15);
    expect(hung).toBeLessThanOrEqual(45);
    expect(results.filter((r) => r !== undefined && r !== "TIMEOUT")).toEqual([]);
    const back = await Promise.all(Array.from({ length: 10 }, () => get(`http://${proxyIp}:8080/hostname`, { timeoutMs: 1_500 })));
    expect(back.map((a) => a.backend)).toEqual(Array(10).fill("app-0"));
  });

  it("app-0 stopped behind the proxy: its connections close; started again, the proxy reaches it again", async () => {
    await docker.getContainer(app0.id).stop({ t: 2 });
    const whileStopped = await failure(get(`http://${proxyIp}:8080/hostname`));
    log.info(`app-0 stopped: a request through its proxy fails with ${whileStopped}`);
    expect(whileStopped).toBeDefined();
    await docker.getContainer(app0.id).start();
    const t = Date.now();
    await waitFor("app-0 answering through its proxy", 10_000, async () =>
      (await get(`http://${proxyIp}:8080/hostname`, { timeoutMs: 1_000 }).catch(() => undefined))?.backend === "app-0" ? true : undefined,
    );
    log.info(`app-0 started: answering through its proxy after ${Date.now() - t} ms`);
    // And through nginx, which never saw the stop.
    const answers = await Promise.all(Array.from({ length: 8 }, () => get(`${lbUrl}/hostname`)));
    expect(answers.map((a) => a.backend)).toContain("app-0");
  });
});
