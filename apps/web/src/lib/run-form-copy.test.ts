import { explicitBalancer } from "@scalelab/scenarios/components";
import { ZRunCreate, type TRunCreate, type TRunCreateInput } from "@scalelab/scenarios/contract";
import { describe, expect, it } from "vitest";
import { formFromRun } from "./run-form-copy";
import { runInputOf } from "./run-form";

/** A definition as runs/service.ts createRun stores it: parsed, the balancer's defaults written out. */
const stored = (def: TRunCreateInput): TRunCreate => {
  const run = ZRunCreate.parse(def);
  return { ...run, topology: { ...run.topology, balancer: explicitBalancer(run.topology.balancer) } };
};

/** A component of kind "none" is the same as none at all (the form sends the cache section's "none" for a user's image). */
const withoutNone = (run: TRunCreate) => ({
  ...run,
  topology: Object.fromEntries(Object.entries(run.topology).filter(([, c]) => (c as { kind?: string } | undefined)?.kind !== "none")),
});

/** What "Copy and change" must give: the form, sent unchanged, is the same run definition. */
const roundTrip = (def: TRunCreate) => {
  const { body, issues } = runInputOf(formFromRun(def));
  expect(issues).toEqual([]);
  return stored(body);
};

const DEFINITIONS: [string, TRunCreateInput][] = [
  [
    "nginx, 3 replicas, closed model, endpoint",
    {
      name: "3 replicas",
      topology: { balancer: { kind: "nginx", algorithm: "least_conn" }, service: { replicas: 3, cpus: 0.2, memoryMb: 256 } },
      workload: { endpoint: "cpu", vus: 3, durationSeconds: 20 },
    },
  ],
  [
    "haproxy, wrk, connections",
    {
      topology: { balancer: { kind: "haproxy" }, service: { replicas: 2, cpus: 0.5 } },
      workload: { endpoint: "hostname", loadgen: "wrk", connections: 32, durationSeconds: 10 },
    },
  ],
  [
    "open model with postgres and a stop fault",
    {
      name: "faults",
      topology: { service: { replicas: 3, cpus: 0.2 }, storage: { kind: "postgres", memoryMb: 256 } },
      workload: { endpoint: "products", arrivalRate: 200, durationSeconds: 20 },
      faults: [
        { at: 5, action: "stop", target: { role: "app", index: 2 } },
        { at: 12, action: "start", target: { role: "app", index: 2 } },
      ],
    },
  ],
  [
    "a user's image with env, command and one request with headers",
    {
      topology: {
        service: {
          kind: "image",
          image: "myapp:1.2",
          port: 8080,
          replicas: 2,
          env: { MODE: "fast", GREETING: "a=b" },
          command: ["./server", "--port", "8080"],
        },
      },
      workload: {
        vus: 4,
        durationSeconds: 10,
        request: { method: "POST", path: "/orders?x=1", headers: { "X-Token": "t1", Accept: "application/json" }, body: '{"a":1}' },
      },
    },
  ],
  [
    "a weighted mix of requests",
    {
      topology: { service: { replicas: 1 } },
      workload: {
        vus: 2,
        durationSeconds: 10,
        requests: [
          { weight: 3, method: "GET", path: "/products" },
          { weight: 1, method: "POST", path: "/orders", body: "{}" },
        ],
      },
    },
  ],
];

describe("formFromRun (Copy and change)", () => {
  it.each(DEFINITIONS)("%s: the form sent unchanged is the same definition", (_, def) => {
    expect(withoutNone(roundTrip(stored(def)))).toEqual(withoutNone(stored(def)));
  });

  it("leaves out what happened to the faults (actual)", () => {
    const def = stored(DEFINITIONS[2]![1]);
    const ran = { ...def, faults: def.faults.map((f) => ({ ...f, actual: { atMs: 5012, lagMs: 12, tookMs: 300 } })) };
    expect(formFromRun(ran).faults.every((f) => !("actual" in f))).toBe(true);
  });

  it("opens on the traffic and load model the run used", () => {
    const open = formFromRun(stored(DEFINITIONS[2]![1]));
    expect([open.model, open.traffic]).toEqual(["open", "endpoint"]);
    const image = formFromRun(stored(DEFINITIONS[3]![1]));
    expect([image.model, image.traffic, image.text.headers]).toEqual(["closed", "request", "X-Token: t1\nAccept: application/json"]);
  });
});
