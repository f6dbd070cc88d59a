import { describe, expect, it } from "vitest";
import { buildPlan, K6_SCRIPT_PATH, NGINX_CONF_PATH, type PlanInput } from "./plan";
import { ZRunCreate, type TRunCreateInput } from "./schemas";

const images = { testbed: "scalelab/testbed:aaa", nginx: "scalelab/nginx:bbb", k6: "scalelab/k6:ccc" };
const runId = "cm3x9k2abc0001";
const plan = (run: TRunCreateInput, id = runId) => buildPlan({ runId: id, run: ZRunCreate.parse(run), images } satisfies PlanInput);

describe("buildPlan", () => {
  const p = plan({
    topology: { balancer: { algorithm: "least_conn", cpus: 0.5 }, service: { replicas: 3, cpus: 0.2, memoryMb: 128, threads: 1 } },
    workload: { endpoint: "cpu", vus: 3, durationSeconds: 5, loadgenCpus: 1 },
  });

  it("puts every container of the run on its own labelled network", () => {
    expect(p.network).toEqual({ name: `sl-run-${runId}`, labels: { "scalelab.managed": "true", "scalelab.run": runId } });
    for (const c of [...p.apps, p.lb, p.loadgen]) {
      expect(c.labels).toEqual({ "scalelab.managed": "true", "scalelab.run": runId, "scalelab.role": c.role });
      expect(c.name).toMatch(/^sl-cm3x9k2a-(app|lb|loadgen)-\d+$/);
    }
  });

  it("labels the objects with the control plane's instance when given", () => {
    const q = buildPlan({ runId, instance: "a1b2c3", run: ZRunCreate.parse({ topology: { service: {} }, workload: { endpoint: "hostname", vus: 1 } }), images });
    for (const labels of [q.network.labels, q.lb.labels, q.apps[0]!.labels]) expect(labels["scalelab.instance"]).toBe("a1b2c3");
    expect(() => buildPlan({ runId, instance: "No Spaces", run: ZRunCreate.parse({ topology: { service: {} }, workload: { endpoint: "hostname", vus: 1 } }), images })).toThrow(/instance/);
  });

  it("plans replicas with CPU and memory limits and reachable names", () => {
    expect(p.apps.map((a) => [a.name, a.hostname, a.aliases])).toEqual([
      ["sl-cm3x9k2a-app-0", "app-0", ["app-0"]],
      ["sl-cm3x9k2a-app-1", "app-1", ["app-1"]],
      ["sl-cm3x9k2a-app-2", "app-2", ["app-2"]],
    ]);
    expect(p.apps[0]).toMatchObject({
      role: "app",
      image: images.testbed,
      nanoCpus: 200_000_000,
      memoryBytes: 128 * 1024 * 1024,
      env: { TESTBED_PORT: "8080", TESTBED_THREADS: "1", TESTBED_CPU_ITERATIONS: "1000" },
    });
    expect(p.backends).toEqual(["app-0", "app-1", "app-2"]);
  });

  it("gives the balancer its config file and alias", () => {
    expect(p.lb).toMatchObject({ role: "lb", image: images.nginx, aliases: ["lb"], nanoCpus: 500_000_000 });
    expect(p.lb.memoryBytes).toBeUndefined();
    expect(p.lb.files).toHaveLength(1);
    expect(p.lb.files[0]!.path).toBe(NGINX_CONF_PATH);
    expect(p.lb.files[0]!.content).toContain("least_conn;");
    expect(p.lb.files[0]!.content).toContain("server app-2:8080");
  });

  it("runs k6 with its CPU limit, the script and the web dashboard", () => {
    expect(p.loadgen).toMatchObject({ role: "loadgen", image: images.k6, nanoCpus: 1_000_000_000 });
    expect(p.loadgen.cmd).toEqual(["run", "--no-color", "--quiet", K6_SCRIPT_PATH]);
    expect(p.loadgen.env).toMatchObject({ K6_WEB_DASHBOARD: "true", K6_WEB_DASHBOARD_PERIOD: "1s", K6_WEB_DASHBOARD_TAGS: "backend" });
    expect(p.loadgen.files[0]!.path).toBe(K6_SCRIPT_PATH);
    expect(p.loadgen.files[0]!.content).toContain("http://lb:8080/cpu");
  });

  it("leaves CPU unlimited and the thread count to the runtime when not given", () => {
    const q = plan({ topology: { service: { replicas: 1 } }, workload: { endpoint: "hostname", vus: 1 } });
    expect(q.apps[0]!.nanoCpus).toBeUndefined();
    expect(q.apps[0]!.env.TESTBED_THREADS).toBeUndefined();
    expect(q.lb.nanoCpus).toBeUndefined();
  });

  it.each(["short", "UPPERCASE1", "has space 1", "ends-with-", "-starts", "a/b/c/d/e", "x".repeat(65)])("rejects run id %j", (id) => {
    expect(() => plan({ topology: { service: {} }, workload: { endpoint: "hostname", vus: 1 } }, id)).toThrow(/invalid run id/);
  });

  it("accepts a uuid", () => {
    expect(plan({ topology: { service: {} }, workload: { endpoint: "hostname", vus: 1 } }, "0b7c3f9e-2a41-4c55-9d0e-8f1a2b3c4d5e").network.name).toBe(
      "sl-run-0b7c3f9e-2a41-4c55-9d0e-8f1a2b3c4d5e",
    );
  });
});
