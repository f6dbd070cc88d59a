import { ZRunCreate } from "@scalelab/scenarios/contract";
import type { ResolverOptions } from "react-hook-form";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_FORM,
  depsOf,
  errorMessages,
  faultRolesOf,
  fieldId,
  infoOf,
  numberFromInput,
  runFormResolver,
  SECTIONS,
  toRunInput,
  visibleFields,
  type RunFormValues,
} from "./run-form";

type Patch = { model?: RunFormValues["model"]; name?: string } & {
  [K in keyof RunFormValues["topology"]]?: Partial<RunFormValues["topology"][K]>;
} & {
  workload?: Partial<RunFormValues["workload"]>;
};

const form = (patch: Patch = {}): RunFormValues => {
  const { model, name, workload, ...topology } = patch;
  const t = DEFAULT_FORM.topology;
  return {
    name: name ?? DEFAULT_FORM.name,
    model: model ?? DEFAULT_FORM.model,
    topology: {
      balancer: { ...t.balancer, ...topology.balancer },
      service: { ...t.service, ...topology.service },
      downstream: { ...t.downstream, ...topology.downstream },
      broker: { ...t.broker, ...topology.broker },
      storage: { ...t.storage, ...topology.storage },
      cache: { ...t.cache, ...topology.cache },
    },
    workload: { ...DEFAULT_FORM.workload, ...workload },
    faults: [],
  };
};

const resolve = (values: RunFormValues) =>
  runFormResolver(values, undefined, { fields: {}, shouldUseNativeValidation: false } as ResolverOptions<RunFormValues>);
const messagesOf = async (values: RunFormValues) =>
  Object.fromEntries(errorMessages((await resolve(values)).errors).map((i) => [i.path, i.message]));

describe("the form's body", () => {
  it("turns the defaults into a valid run: 3 × 0.2 CPU, cpu endpoint, 3 VUs, 20 s, nothing downstream, no store", () => {
    const body = toRunInput(DEFAULT_FORM);
    const run = ZRunCreate.parse(body);
    expect(run.topology.service).toMatchObject({ replicas: 3, cpus: 0.2, memoryMb: 256, workerPool: 0, logging: "none" });
    expect(run.workload).toMatchObject({ endpoint: "cpu", vus: 3, durationSeconds: 20 });
    expect(body.workload.arrivalRate).toBeUndefined();
    expect(body.topology).not.toHaveProperty("broker");
    expect(body).not.toHaveProperty("name");
    expect(body).not.toHaveProperty("model");
  });

  it("sends the arrival rate and max VUs, not the VUs, in the open model", () => {
    const w = toRunInput(form({ model: "open", workload: { arrivalRate: 250, maxVus: 50 } })).workload;
    expect(w).toMatchObject({ arrivalRate: 250, maxVus: 50 });
    expect(w).not.toHaveProperty("vus");
  });

  it("sends the broker only with async work, and the downstream and store details only when they are used", () => {
    const none = toRunInput(form({ downstream: { mode: "none", replicas: 99 }, broker: { memoryMb: 1 } }));
    expect(none.topology.downstream).toEqual({ mode: "none" });
    expect(none.topology).not.toHaveProperty("broker");
    expect(ZRunCreate.safeParse(none).success).toBe(true);

    const async = toRunInput(form({ downstream: { mode: "async", replicas: 1, cpus: 0.2 }, broker: { memoryMb: 512 } }));
    expect(async.topology.broker).toEqual({ kind: "kafka", memoryMb: 512 });
    expect(async.topology.downstream).toMatchObject({ mode: "async", replicas: 1, cpus: 0.2 });
    expect(ZRunCreate.safeParse(async).success).toBe(true);

    expect(toRunInput(form({ storage: { kind: "none", poolSize: 0 } })).topology.storage).toEqual({ kind: "none" });
    expect(toRunInput(form({ storage: { kind: "postgres", poolSize: 4 } })).topology.storage).toMatchObject({
      kind: "postgres",
      poolSize: 4,
    });
  });

  it("leaves out the log flush cost without logging and the queue limit without a pool", () => {
    const service = toRunInput(form({ service: { logging: "none", logFlushMs: 5, workerPool: 0, queueLimit: 10 } })).topology.service;
    expect(service).not.toHaveProperty("logFlushMs");
    expect(service).not.toHaveProperty("queueLimit");
    expect(
      toRunInput(form({ service: { logging: "blocking", logFlushMs: 5, workerPool: 4, queueLimit: 10 } })).topology.service,
    ).toMatchObject({
      logFlushMs: 5,
      queueLimit: 10,
    });
  });

  it("sends a trimmed name, and none when it is blank", () => {
    expect(toRunInput(form({ name: "  a run " })).name).toBe("a run");
    expect(toRunInput(form({ name: "   " }))).not.toHaveProperty("name");
  });
});

describe("checking the form with the shared schema", () => {
  it("passes the body it would send", async () => {
    const result = await resolve(DEFAULT_FORM);
    expect(result.errors).toEqual({});
    expect(result.values).toEqual(toRunInput(DEFAULT_FORM));
  });

  it("reports each bad field under its own name, which is its API path", async () => {
    expect(await messagesOf(form({ service: { replicas: 99 }, workload: { vus: 1.5 } }))).toEqual({
      "topology.service.replicas": "service.replicas must be between 1 and 16",
      "workload.vus": "workload.vus must be a whole number between 1 and 1000",
    });
  });

  it("names a field that is not a number", async () => {
    expect(await messagesOf(form({ service: { memoryMb: Number.NaN } }))).toEqual({
      "topology.service.memoryMb": "service.memoryMb must be a number",
    });
  });

  it("applies the cross-component rules: a store for the products endpoint, cassandra's memory", async () => {
    expect(Object.keys(await messagesOf(form({ workload: { endpoint: "products" } })))).toEqual(["workload.endpoint"]);
    expect(await messagesOf(form({ workload: { endpoint: "products" }, storage: { kind: "cassandra", memoryMb: 256 } }))).toEqual({
      "topology.storage.memoryMb": expect.stringContaining("for cassandra"),
    });
  });

  it("ignores what is hidden, however wrong", async () => {
    expect(
      await messagesOf(form({ downstream: { mode: "none", replicas: 99 }, broker: { memoryMb: 1 }, workload: { arrivalRate: -1 } })),
    ).toEqual({});
  });
});

describe("fields", () => {
  it("every field's path is in the schema, and every id is unique", () => {
    const fields = SECTIONS.flatMap((s) => s.fields);
    for (const f of fields) expect(() => infoOf(f.path), f.path).not.toThrow();
    const ids = fields.map(fieldId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("every enum option has a label", () => {
    for (const f of SECTIONS.flatMap((s) => s.fields)) {
      const info = infoOf(f.path);
      if (info.kind !== "enum") continue;
      if (f.subset) expect(info.options, f.path).toEqual(expect.arrayContaining(Object.keys(f.options ?? {})));
      else expect(Object.keys(f.options ?? {}).sort(), f.path).toEqual([...info.options].sort());
    }
    // The per-kind algorithm fields together offer every algorithm.
    const algorithms = SECTIONS.flatMap((s) => s.fields).filter((f) => f.path === "topology.balancer.algorithm");
    expect(new Set(algorithms.flatMap((f) => Object.keys(f.options ?? {}))).size).toBe(
      (infoOf("topology.balancer.algorithm") as { options: readonly string[] }).options.length,
    );
  });

  it("offers each balancer kind its own algorithms and drops the balancer's knobs without one", () => {
    const ids = (v: RunFormValues) => visibleFields(v).map(fieldId);
    expect(ids(DEFAULT_FORM)).toEqual(expect.arrayContaining(["algorithm", "balancer.maxFails", "balancer.retryNextUpstream"]));
    expect(ids(DEFAULT_FORM)).not.toContain("haproxyAlgorithm");
    expect(ids(form({ balancer: { kind: "haproxy", algorithm: "leastconn" } }))).toContain("haproxyAlgorithm");
    const none = toRunInput(form({ balancer: { kind: "none" } }));
    expect(none.topology?.balancer).toEqual({ kind: "none" });
    expect(ZRunCreate.safeParse(none).success).toBe(true);
  });

  it("shows the broker's fields only with async work, and the open model's fields only in it", () => {
    const ids = (v: RunFormValues) => visibleFields(v).map(fieldId);
    expect(ids(DEFAULT_FORM)).not.toContain("broker.memoryMb");
    expect(ids(form({ downstream: { mode: "async" } }))).toEqual(
      expect.arrayContaining(["broker.kind", "broker.memoryMb", "downstream.replicas"]),
    );
    expect(ids(form({ model: "open" }))).toEqual(expect.arrayContaining(["arrivalRate", "maxVus"]));
    expect(ids(form({ model: "open" }))).not.toContain("vus");
  });

  it("re-checks the fields a choice shows or hides, and the rules that depend on it", () => {
    const field = (path: string) => SECTIONS.flatMap((s) => s.fields).find((f) => f.path === path)!;
    expect(depsOf(field("topology.downstream.mode"))).toEqual(
      expect.arrayContaining(["topology.downstream.replicas", "topology.broker.memoryMb"]),
    );
    expect(depsOf(field("model"))).toEqual(["workload.vus", "workload.arrivalRate", "workload.maxVus"]);
    expect(depsOf(field("topology.storage.kind"))).toEqual(expect.arrayContaining(["workload.endpoint", "topology.storage.poolSize"]));
    expect(depsOf(field("topology.service.replicas"))).toEqual(["topology.storage.poolSize"]);
    expect(depsOf(field("topology.service.cpus"))).toEqual([]);
  });
});

describe("the fault timeline", () => {
  const withFaults = (faults: RunFormValues["faults"]): RunFormValues => ({
    ...form({ model: "open", workload: { arrivalRate: 20, durationSeconds: 12 } }),
    faults,
  });

  it("sends the faults with only their actions' parameters, and none when there are none", () => {
    const body = toRunInput(
      withFaults([
        { at: 3, action: "stop", target: { role: "app", index: 1 }, ms: 200 },
        { at: 7, action: "start", target: { role: "app", index: 1 } },
      ]),
    );
    expect(body.faults).toEqual([
      { at: 3, action: "stop", target: { role: "app", index: 1 } },
      { at: 7, action: "start", target: { role: "app", index: 1 } },
    ]);
    expect(ZRunCreate.safeParse(body).success).toBe(true);
    expect(toRunInput(DEFAULT_FORM)).not.toHaveProperty("faults");
  });

  it("offers the roles of the topology on screen with their counts, and none while it is invalid", () => {
    const roles = faultRolesOf(form({ service: { replicas: 4 }, storage: { kind: "postgres" } }));
    expect(roles).toMatchObject({ app: { count: 4 }, lb: { count: 1 }, db: { count: 1 } });
    expect(roles).not.toHaveProperty("loadgen");
    expect(faultRolesOf(form({ balancer: { kind: "none" } }))).not.toHaveProperty("lb");
    expect(faultRolesOf(form({ service: { replicas: 99 } }))).toBeNull();
  });

  it("puts each fault's issue on its row's field, with the API's message naming the fault", async () => {
    expect(
      await messagesOf(
        withFaults([
          { at: 3, action: "start", target: { role: "app", index: 1 } },
          { at: 5, action: "stop", target: { role: "app", index: 3 } },
          { at: 12, action: "stop", target: { role: "app", index: 0 } },
          { at: 1, action: "delay", target: { role: "app", index: 0 } },
        ]),
      ),
    ).toEqual({
      "faults.0.action": "faults[0] (start app-1 @3s): start needs a stopped container (stop or kill it first); app-1 is running at 3 s",
      "faults.1.target.index": "faults[1] (stop app-3 @5s): target.index must be between 0 and 2: the run has 3 replicas (app)",
      "faults.2.at": "faults[2] (stop app-0 @12s): at must be before the end of the load (0–11 s for workload.durationSeconds 12)",
      "faults.3.ms": "delay needs ms (1–60000)",
    });
  });
});

describe("numberFromInput", () => {
  it("reads empty as not given and anything else as a number", () => {
    expect(numberFromInput("")).toBeUndefined();
    expect(numberFromInput("  ")).toBeUndefined();
    expect(numberFromInput("0.2")).toBe(0.2);
    expect(numberFromInput(3)).toBe(3);
    expect(numberFromInput("lots")).toBeNaN();
  });
});

describe("errorMessages", () => {
  it("flattens a nested error tree, skipping element refs", () => {
    const errors = {
      topology: {
        service: { replicas: { type: "server", message: "too many", ref: { name: "x" } } },
        broker: { type: "server", message: "no broker" },
      },
      root: { server: { type: "server", message: "queue down" } },
    };
    expect(errorMessages(errors as never)).toEqual([
      { path: "topology.service.replicas", message: "too many" },
      { path: "topology.broker", message: "no broker" },
      { path: "root.server", message: "queue down" },
    ]);
  });
});
