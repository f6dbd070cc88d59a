import { KIND_FIELDS, ZRunCreate } from "@scalelab/scenarios/contract";
import { set as setAt, type ResolverOptions } from "react-hook-form";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_FORM,
  depsOf,
  errorMessages,
  faultRolesOf,
  fieldId,
  infoOf,
  initialForm,
  kindChanges,
  labelIssue,
  labelOf,
  notOffered,
  numberFromInput,
  offeredField,
  placeIssue,
  placeIssues,
  placePresetIssue,
  rangeOf,
  runFormResolver,
  runInputOf,
  scalePatch,
  SECTIONS,
  toRunInput,
  visibleFields,
  withHost,
  type FormPath,
  type RunFormValues,
} from "./run-form";

type Patch = {
  model?: RunFormValues["model"];
  name?: string;
  traffic?: RunFormValues["traffic"];
  text?: Partial<RunFormValues["text"]>;
  include?: RunFormValues["include"];
  engine?: string;
} & {
  [K in keyof RunFormValues["topology"]]?: Partial<RunFormValues["topology"][K]>;
} & {
  workload?: Partial<RunFormValues["workload"]>;
};

const form = (patch: Patch = {}): RunFormValues => {
  const { model, name, workload, traffic, text, include, engine, ...topology } = patch;
  const t = DEFAULT_FORM.topology;
  return {
    name: name ?? DEFAULT_FORM.name,
    model: model ?? DEFAULT_FORM.model,
    traffic: traffic ?? DEFAULT_FORM.traffic,
    text: { ...DEFAULT_FORM.text, ...text },
    include: include ?? DEFAULT_FORM.include,
    topology: {
      balancer: { ...t.balancer, ...topology.balancer },
      service: { ...t.service, ...topology.service },
      downstream: { ...t.downstream, ...topology.downstream },
      broker: { ...t.broker, ...topology.broker },
      storage: { ...t.storage, ...topology.storage },
      cache: { ...t.cache, ...topology.cache },
      placement: { ...t.placement, ...topology.placement },
    },
    workload: { ...DEFAULT_FORM.workload, ...workload },
    faults: [],
    engine: engine ?? DEFAULT_FORM.engine,
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

  it("reports each bad field under its own name, its label in the message (the path is the API.s)", async () => {
    expect(await messagesOf(form({ service: { replicas: 99 }, workload: { vus: 1.5 } }))).toEqual({
      "topology.service.replicas": "Replicas must be between 1 and 16",
      "workload.vus": "Virtual users must be a whole number between 1 and 1000",
    });
  });

  it("names a field that is not a number", async () => {
    expect(await messagesOf(form({ service: { memoryMb: Number.NaN } }))).toEqual({
      "topology.service.memoryMb": "Memory per replica (MB) must be a number",
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
      "faults.2.at": "faults[2] (stop app-0 @12s): at must be before the end of the load (0–11 s for Duration (s) 12)",
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

/** A user's image, as /runs/new?kind=image opens the form, with these changes. */
const image = (patch: Patch = {}): RunFormValues => {
  const start = initialForm("image");
  const v = form({
    ...patch,
    traffic: patch.traffic ?? start.traffic,
    service: { ...start.topology.service, image: "myapp:1.2", ...patch.service },
  });
  return v;
};

describe("a user's image", () => {
  it("opens on the image with one request from /runs/new?kind=image", () => {
    const v = initialForm("image");
    expect(v.topology.service.kind).toBe("image");
    expect(v.traffic).toBe("request");
    expect(initialForm()).toEqual(DEFAULT_FORM);
    expect(initialForm("bogus")).toEqual(DEFAULT_FORM);
  });

  it("sends its image, port, health path, env and command, and none of the testbed's knobs", () => {
    const v = image({
      service: { port: 5000, healthPath: "/healthz" },
      text: { env: "LOG_LEVEL=info\n# comment\nWORKERS=2", command: "gunicorn\n--bind=0.0.0.0:5000\napp:app" },
    });
    const body = toRunInput(v);
    expect(body.topology?.service).toEqual({
      kind: "image",
      image: "myapp:1.2",
      port: 5000,
      healthPath: "/healthz",
      env: { LOG_LEVEL: "info", WORKERS: "2" },
      command: ["gunicorn", "--bind=0.0.0.0:5000", "app:app"],
      replicas: 3,
      cpus: 0.2,
      memoryMb: 256,
    });
    expect(body.topology?.downstream).toEqual({});
    expect(body.topology).not.toHaveProperty("broker");
    expect(body.topology?.cache).toEqual({ kind: "none" });
    expect(body.workload).toMatchObject({ request: { method: "GET", path: "/" } });
    expect(body.workload).not.toHaveProperty("endpoint");
    expect(ZRunCreate.safeParse(body).success).toBe(true);
  });

  it("sends no env or command when their text is empty, and neither for the lab's own servers", () => {
    const service = toRunInput(image()).topology?.service;
    expect(service).not.toHaveProperty("env");
    expect(service).not.toHaveProperty("command");
    const testbed = toRunInput(form({ text: { env: "A=1", command: "x" } })).topology?.service;
    expect(testbed).not.toHaveProperty("env");
    expect(testbed).not.toHaveProperty("command");
  });

  it("puts a bad env line, and the schema's issues of an entry, under the Environment with the line", async () => {
    expect(await messagesOf(image({ text: { env: "A=1\nB=2\nnonsense" } }))).toEqual({
      "text.env": "Environment, line 3: NAME=value expected",
    });
    expect(await messagesOf(image({ text: { env: "A=1\nPORT=9000" } }))).toEqual({
      "text.env": expect.stringMatching(/^Environment, line 2: service\.env\.PORT is set by the lab/),
    });
    expect(await messagesOf(image({ text: { env: "\nlower=1" } }))).toEqual({
      "text.env": expect.stringMatching(/^Environment, line 2: service\.env names must match/),
    });
  });

  it("puts a command's issues under the Command with the line", async () => {
    expect(await messagesOf(image({ text: { command: "gunicorn -w 4 app:app" } }))).toEqual({
      "text.command": expect.stringMatching(/^Command, line 1: one argv item per line/),
    });
    expect(await messagesOf(image({ text: { command: `run\n\n${"x".repeat(5000)}` } }))).toEqual({
      "text.command": "Command, line 3: service.command items must be at most 4,096 bytes",
    });
  });

  it("names a missing image under the Image field", async () => {
    expect(await messagesOf(image({ service: { image: "" } }))).toEqual({
      "topology.service.image": "Image must name an image (e.g. myapp:1.2)",
    });
  });

  it("offers no built-in endpoint for an image, every traffic for the testbed", () => {
    const traffic = SECTIONS.flatMap((s) => s.fields).find((f) => f.path === "traffic")!;
    expect(Object.keys(offeredField(traffic, image()).options ?? {})).toEqual(["request", "requests", "script"]);
    expect(Object.keys(offeredField(traffic, DEFAULT_FORM).options ?? {})).toEqual(["endpoint", "request", "requests", "script"]);
  });

  it("shows the store for an image with its init script, not the testbed's pool and products", () => {
    const ids = (v: RunFormValues) => visibleFields(v).map(fieldId);
    const pg = image({ storage: { kind: "postgres", init: "CREATE TABLE t (id int);" } });
    expect(ids(pg)).toEqual(expect.arrayContaining(["storage.kind", "storage.memoryMb", "storageInit"]));
    expect(ids(pg)).not.toContain("storage.poolSize");
    expect(ids(pg)).not.toContain("storage.products");
    expect(toRunInput(pg).topology?.storage).toEqual({ kind: "postgres", memoryMb: 1024, init: "CREATE TABLE t (id int);" });
    expect(ZRunCreate.safeParse(toRunInput(pg)).success).toBe(true);
    // The testbed has its own schema: no init field, and nothing sent from it.
    expect(ids(form({ storage: { kind: "postgres", init: "x" } }))).not.toContain("storageInit");
    expect(toRunInput(form({ storage: { kind: "postgres", init: "x" } })).topology?.storage).not.toHaveProperty("init");
  });

  it("runs a broker beside an image only when asked, without the testbed's downstream mode", () => {
    const ids = (v: RunFormValues) => visibleFields(v).map(fieldId);
    expect(ids(image())).not.toContain("broker.kind");
    expect(toRunInput(image())).not.toHaveProperty("topology.broker");
    const on = image({ include: { broker: true }, broker: { kind: "rabbitmq" } });
    expect(ids(on)).toEqual(expect.arrayContaining(["broker.kind", "broker.memoryMb"]));
    expect(ids(on)).not.toContain("downstream.mode");
    const body = toRunInput(on);
    expect(body.topology?.broker).toMatchObject({ kind: "rabbitmq" });
    expect(ZRunCreate.safeParse(body).success).toBe(true);
    // The testbed's broker follows its async hand-off, whatever the image's checkbox says.
    expect(toRunInput(form({ include: { broker: true } })).topology).not.toHaveProperty("broker");
    expect(ids(form({ downstream: { mode: "async" } }))).toContain("broker.kind");
    // A stale async mode does not bring a broker to experiment 7's servers.
    expect(ids(form({ service: { kind: "nginx_static" }, downstream: { mode: "async" } }))).not.toContain("broker.kind");
  });

  it("shows the cache only for an image, and sends it only then", () => {
    const ids = (v: RunFormValues) => visibleFields(v).map(fieldId);
    expect(ids(DEFAULT_FORM)).not.toContain("cache.kind");
    expect(toRunInput(DEFAULT_FORM).topology).not.toHaveProperty("cache");
    expect(ids(image())).toContain("cache.kind");
    expect(ids(image())).not.toContain("cache.memoryMb");
    const redis = toRunInput(image({ cache: { kind: "redis", memoryMb: 128 } }));
    expect(redis.topology?.cache).toEqual({ kind: "redis", memoryMb: 128 });
    expect(ZRunCreate.safeParse(redis).success).toBe(true);
  });
});

describe("the traffic", () => {
  it("endpoint: the testbed's endpoint and nothing else", () => {
    const w = toRunInput(DEFAULT_FORM).workload;
    expect(w.endpoint).toBe("cpu");
    for (const key of ["request", "requests", "script"]) expect(w).not.toHaveProperty(key);
  });

  it("one request: its method, path, headers from the text and body, without the endpoint", () => {
    const v = image({
      traffic: "request",
      text: { headers: "Content-Type: application/json\nX-Trace: 1" },
      workload: { request: { method: "POST", path: "/orders?x=1", body: '{"item":"book"}' } },
    });
    const w = toRunInput(v).workload;
    expect(w.request).toEqual({
      method: "POST",
      path: "/orders?x=1",
      headers: { "Content-Type": "application/json", "X-Trace": "1" },
      body: '{"item":"book"}',
    });
    for (const key of ["endpoint", "requests", "script"]) expect(w).not.toHaveProperty(key);
    expect(ZRunCreate.safeParse(toRunInput(v)).success).toBe(true);
    // An empty body and no headers are left out; the testbed takes a request too.
    expect(toRunInput(form({ traffic: "request" })).workload.request).toEqual({ method: "GET", path: "/" });
  });

  it("one request: a GET with a body, a bad header line and a reserved header land under their fields", async () => {
    expect(await messagesOf(image({ workload: { request: { method: "GET", path: "/", body: "x" } } }))).toEqual({
      "workload.request.body": "Body is not sent with GET or HEAD: use POST, PUT or PATCH, or leave the body out",
    });
    expect(await messagesOf(image({ text: { headers: "Accept: */*\nbroken" } }))).toEqual({
      "text.headers": "Headers, line 2: Name: value expected",
    });
    expect(await messagesOf(image({ text: { headers: "Host: example.org" } }))).toEqual({
      "text.headers": expect.stringMatching(/^workload\.request\.headers must not set host/),
    });
    expect(await messagesOf(image({ text: { headers: "\nbad name: v" } }))).toEqual({
      "text.headers": expect.stringMatching(/^Headers, line 2: workload\.request\.headers names must be HTTP tokens/),
    });
  });

  it("a mix: the rows with their weights, an empty body left out, nothing else", async () => {
    const v = image({
      traffic: "requests",
      workload: {
        requests: [
          { weight: 3, method: "GET", path: "/orders", body: "" },
          { weight: 1, method: "POST", path: "/orders", body: '{"item":"pen"}' },
        ],
      },
    });
    const w = toRunInput(v).workload;
    expect(w.requests).toEqual([
      { weight: 3, method: "GET", path: "/orders" },
      { weight: 1, method: "POST", path: "/orders", body: '{"item":"pen"}' },
    ]);
    for (const key of ["endpoint", "request", "script"]) expect(w).not.toHaveProperty(key);
    expect(ZRunCreate.safeParse(toRunInput(v)).success).toBe(true);
    // A row's issue lands on its field; a mix with wrk on the list.
    expect(
      await messagesOf(
        image({
          traffic: "requests",
          workload: {
            requests: [
              { weight: 1, method: "GET", path: "/", body: "x" },
              { weight: 0, method: "GET", path: "/" },
            ],
          },
        }),
      ),
    ).toEqual({
      "workload.requests.0.body": "workload.requests[].body is not sent with GET or HEAD: use POST, PUT or PATCH",
      "workload.requests.1.weight": expect.stringContaining("workload.requests[].weight must be"),
    });
    expect(Object.keys(await messagesOf(image({ traffic: "requests", workload: { loadgen: "wrk" } })))).toEqual(["workload.requests"]);
  });

  it("a script: the script without VUs when left empty, nothing else", async () => {
    const script = "import http from 'k6/http';\nexport default () => http.get(__ENV.SCALELAB_TARGET);\n";
    const v = image({ traffic: "script", workload: { script, vus: undefined } });
    const w = toRunInput(v).workload;
    expect(w.script).toBe(script);
    expect(w.vus).toBeUndefined();
    for (const key of ["endpoint", "request", "requests"]) expect(w).not.toHaveProperty(key);
    expect(await messagesOf(v)).toEqual({});
    expect(await messagesOf(image({ traffic: "script" }))).toEqual({ "workload.script": "Script must not be empty" });
    // VUs are still required without a script.
    expect(Object.keys(await messagesOf(image({ workload: { vus: undefined } })))).toEqual(["workload.vus"]);
  });

  it("an image without a request is named on the traffic choice", () => {
    expect(placeIssue({ path: "workload.request", message: "m" }, { env: {}, command: {}, headers: {}, thresholds: {} })).toEqual({
      path: "traffic",
      message: "m",
    });
  });
});

describe("How does it scale?", () => {
  it("patches the preset with the service (no replicas), its dependencies and what the load sends (how much load is the preset's)", () => {
    const v = image({
      include: { broker: true },
      storage: { kind: "postgres" },
      cache: { kind: "redis" },
      text: { env: "A=1" },
    });
    const patch = scalePatch(toRunInput(v));
    expect(patch).toEqual({
      topology: {
        service: { kind: "image", image: "myapp:1.2", env: { A: "1" }, cpus: 0.2, memoryMb: 256 },
        storage: { kind: "postgres", memoryMb: 1024 },
        broker: { kind: "kafka", memoryMb: 512 },
        cache: { kind: "redis", memoryMb: 256 },
      },
      workload: { protocol: "http", request: toRunInput(v).workload.request },
    });
    expect(patch.workload).not.toHaveProperty("vus");
    expect(patch.workload).not.toHaveProperty("durationSeconds");
  });

  it("places the preset's issues about its base on the form's fields, the rest on the form", () => {
    const { lines } = runInputOf(image({ text: { env: "\nPORT=1" } }));
    expect(placePresetIssue({ path: "base.topology.service.image", message: "m" }, lines)).toEqual({
      path: "topology.service.image",
      message: "m",
    });
    expect(placePresetIssue({ path: "base.topology.service.env.PORT", message: "m" }, lines)).toEqual({
      path: "text.env",
      message: "Environment, line 2: m",
    });
    expect(placePresetIssue({ path: "sweep.0.values", message: "m" }, lines)).toEqual({ path: "", message: "m" });
    expect(placePresetIssue({ path: "values", message: "m" }, lines)).toEqual({ path: "", message: "m" });
  });
});

describe("changing a component's kind", () => {
  /** The values after the user picked `value` at `path`, and after the form's changes for it. */
  const pick = (v: RunFormValues, path: FormPath, value: string): RunFormValues => {
    const next = structuredClone(v);
    setAt(next, path, value);
    for (const c of kindChanges(path, next)) setAt(next, c.path, c.value);
    return next;
  };

  it("to HAProxy takes HAProxy's algorithm and defaults instead of leaving nginx's, so the form stays valid", async () => {
    const v = form({ balancer: { kind: "nginx", algorithm: "least_conn", maxFails: 5, cpus: 0.5 } });
    const stale = structuredClone(v);
    stale.topology.balancer.kind = "haproxy";
    expect(Object.keys(await messagesOf(stale))).toEqual(["topology.balancer.algorithm"]);

    const haproxy = pick(v, "topology.balancer.kind", "haproxy");
    expect(haproxy.topology.balancer).toEqual({
      kind: "haproxy",
      algorithm: "roundrobin",
      maxFails: 1,
      failTimeoutSeconds: 10,
      retryNextUpstream: true,
      cpus: undefined,
    });
    expect(await messagesOf(haproxy)).toEqual({});
    expect(pick(haproxy, "topology.balancer.kind", "nginx").topology.balancer.algorithm).toBe("round_robin");
    expect(await messagesOf(pick(haproxy, "topology.balancer.kind", "none"))).toEqual({});
  });

  it("of the store, the server, the broker, the cache and the load generator resets what depends on it, nothing else", async () => {
    const cassandra = pick(form({ storage: { kind: "postgres", memoryMb: 512, poolSize: 3 } }), "topology.storage.kind", "cassandra");
    expect(cassandra.topology.storage).toMatchObject({ kind: "cassandra", memoryMb: 1024, poolSize: 10 });
    expect(await messagesOf(cassandra)).toEqual({});

    const image = pick(form({ service: { replicas: 2, cpus: 0.5, threads: 4, workerPool: 8 } }), "topology.service.kind", "image");
    expect(image.topology.service).toMatchObject({ kind: "image", replicas: 2, cpus: 0.5, threads: undefined, workerPool: 0 });

    const rabbit = pick(
      form({ downstream: { mode: "async" }, broker: { kind: "kafka", memoryMb: 2048 } }),
      "topology.broker.kind",
      "rabbitmq",
    );
    // The broker's memory is shown for every kind: it stays.
    expect(rabbit.topology.broker).toMatchObject({ kind: "rabbitmq", memoryMb: 2048 });

    const redis = pick(form({ service: { kind: "image", image: "app:1" }, cache: { kind: "none" } }), "topology.cache.kind", "redis");
    expect(redis.topology.cache).toEqual({ kind: "redis", memoryMb: 256 });

    const wrk = pick(form({ workload: { loadgen: "k6", protocol: "grpc", vus: 40 } }), "workload.loadgen", "wrk");
    expect(wrk.workload).toMatchObject({ loadgen: "wrk", protocol: "http", connections: 50, vus: 3 });
    expect(await messagesOf({ ...wrk, workload: { ...wrk.workload, endpoint: "hostname" } })).toEqual({});

    expect(kindChanges("topology.service.replicas", form())).toEqual([]);
  });

  it("has a field in the form for every kind", () => {
    const paths = new Set(SECTIONS.flatMap((s) => s.fields.map((f) => f.path)));
    for (const path of KIND_FIELDS) expect(paths.has(path as FormPath), path).toBe(true);
  });

  it("offers wrk no traffic it cannot send: a request mix or a script becomes the first traffic offered", () => {
    expect(notOffered(form({ traffic: "requests", workload: { loadgen: "wrk" } }))).toEqual([{ path: "traffic", value: "endpoint" }]);
    expect(notOffered(form({ traffic: "script", service: { kind: "image" }, workload: { loadgen: "wrk" } }))).toEqual([
      { path: "traffic", value: "request" },
    ]);
    expect(notOffered(form({ traffic: "script" }))).toEqual([]);
  });
});

describe("the form's words", () => {
  it("names each field of the form by its label in its own messages", () => {
    for (const section of SECTIONS) {
      for (const field of section.fields) {
        expect(field.label.trim(), `${field.path} has a label`).not.toBe("");
        expect(labelOf(field.path)).toBeTruthy();
        if (!/^(topology|workload)\./.test(field.path)) continue;
        const api = field.path.replace(/^topology\./, "");
        const labelled = labelIssue({ path: field.path, message: `${api} must be between 1 and 16` });
        expect(labelled, field.path).toEqual({ path: field.path, message: `${labelOf(field.path)} must be between 1 and 16` });
      }
    }
  });

  it("has a field, so a label, for every field of the run body (or says why it has none)", () => {
    // Written as text (the env, the command, the headers), rows of their own (the mix, the faults, the pins per role) or set by the form.
    const elsewhere = [
      "topology.placement.pin",
      "topology.service.env",
      "topology.service.command",
      "workload.request.headers",
      "workload.requests",
      "workload.requestTimeoutMs",
    ];
    const leaves = (schema: z.ZodType, prefix: string): string[] => {
      let s = schema;
      while (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodPrefault || s instanceof z.ZodPipe) {
        s = (s instanceof z.ZodPipe ? s.in : s.unwrap()) as z.ZodType;
      }
      if (!(s instanceof z.ZodObject)) return [prefix];
      return Object.entries(s.shape).flatMap(([key, child]) => leaves(child as z.ZodType, prefix ? `${prefix}.${key}` : key));
    };
    const body = leaves(ZRunCreate, "").filter((p) => /^(topology|workload)\./.test(p));
    const missing = body.filter((p) => !labelOf(p) && !elsewhere.some((e) => p === e || p.startsWith(`${e}.`)));
    expect(missing).toEqual([]);
  });

  it("names the other fields a message mentions by their labels, with the section where a label repeats", () => {
    expect(
      labelIssue({
        path: "workload.threads",
        message:
          "workload.threads × workload.loadgenInstances (2 × 1) must be at most workload.connections (1): wrk gives each thread at least one connection",
      }).message,
    ).toBe(
      "Threads per instance × Load generator instances (2 × 1) must be at most Connections (1): wrk gives each thread at least one connection",
    );
    expect(
      labelIssue({
        path: "topology.balancer.algorithm",
        message: "balancer.algorithm must be one of: roundrobin for balancer.kind haproxy",
      }).message,
    ).toBe("Algorithm must be one of: roundrobin for Balancer kind haproxy");
    // Not a field's name: left as it is.
    expect(labelIssue({ path: "topology.service.image", message: "service.imageX and xservice.image" }).message).toBe(
      "service.imageX and xservice.image",
    );
  });

  it("keeps the API's path on the issue, so the server's issues still land on their fields", () => {
    const placed = placeIssues([{ path: "topology.service.replicas", message: "service.replicas must be between 1 and 16" }], form());
    expect(placed).toEqual([{ path: "topology.service.replicas", message: "Replicas must be between 1 and 16" }]);
  });
});

describe("the host's bounds in the hints", () => {
  const host = { cpus: 2, memoryBytes: 8 * 1024 ** 3 };

  it("gives the CPU fields the host's CPUs as their top", () => {
    expect(rangeOf(infoOf("topology.service.cpus"))).toBe("0.05–64");
    expect(rangeOf(withHost("topology.service.cpus", infoOf("topology.service.cpus"), host))).toBe("0.05–2");
    expect(rangeOf(withHost("workload.loadgenCpus", infoOf("workload.loadgenCpus"), host))).toMatch(/–2$/);
    expect(rangeOf(withHost("topology.service.cpus", infoOf("topology.service.cpus"), undefined))).toBe("0.05–64");
  });

  it("gives the service's memory its share of the host for the replicas on screen", () => {
    const info = infoOf("topology.service.memoryMb");
    expect(rangeOf(withHost("topology.service.memoryMb", info, host, form({ service: { replicas: 16 } })))).toBe("32–384");
    expect(rangeOf(withHost("topology.service.memoryMb", info, host, form({ service: { replicas: 2 } })))).toBe("32–3072");
    expect(rangeOf(withHost("topology.service.replicas", infoOf("topology.service.replicas"), host))).toBe("1–16");
  });
});

describe("thresholds on the form", () => {
  it("are sent as the body's thresholds, none when empty; an issue goes under the field with its line", async () => {
    expect(toRunInput(form({ text: { thresholds: "p95<250\nrps>=5" } })).thresholds).toEqual([
      { metric: "p95", op: "<", value: 250 },
      { metric: "rps", op: ">=", value: 5 },
    ]);
    expect(toRunInput(form()).thresholds).toBeUndefined();
    expect(await messagesOf(form({ text: { thresholds: "p95<250\np96<1" } }))).toEqual({
      "text.thresholds": expect.stringMatching(
        /^Thresholds, line 2: "p96<1": unknown metric p96: metric must be one of: rps, p50/,
      ) as string,
    });
    // A rule of the schema across fields: checks needs a k6 script, placed on the threshold's line.
    expect(await messagesOf(form({ text: { thresholds: "\nchecks>=0.9" } }))).toEqual({
      "text.thresholds": expect.stringMatching(
        /^Thresholds, line 2: thresholds\.0\.metric checks is the pass rate of a k6 script's checks/,
      ) as string,
    });
  });
});
