import { describe, expect, it } from "vitest";
import { ZRunCreate } from "./run";
import { imageService, servicePort, serviceHealthPath } from "../components/service/config";
import { customWorkload } from "./workload";

/** A user's image behind nginx with one request template: the smallest valid run of kind image. */
const imageRun = (service: object = {}, workload: object = { request: { path: "/" } }, topology: object = {}) => ({
  topology: { service: { kind: "image", image: "myapp:1.2", replicas: 2, ...service }, ...topology },
  workload: { vus: 4, ...workload },
});

function issuesOf(input: unknown) {
  const r = ZRunCreate.safeParse(input);
  if (r.success) return [];
  return r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
}
const paths = (input: unknown) => issuesOf(input).map((i) => i.path);

describe("service.kind image", () => {
  it("accepts a user's image and fills the contract's defaults (port 8080, health path /)", () => {
    const run = ZRunCreate.parse(imageRun());
    expect(imageService(run.topology.service)).toEqual({ image: "myapp:1.2", port: 8080, healthPath: "/", env: {} });
    expect(servicePort(run.topology.service)).toBe(8080);
    expect(serviceHealthPath(run.topology.service)).toBe("/");
  });

  it("takes port, health path, env and command", () => {
    const run = ZRunCreate.parse(
      imageRun({
        port: 5000,
        healthPath: "/healthz?deep=1",
        env: { WORKERS: "2", APP_MODE: "prod" },
        command: ["gunicorn", "-b", "0.0.0.0:5000", "app:app"],
      }),
    );
    expect(imageService(run.topology.service)).toMatchObject({
      port: 5000,
      healthPath: "/healthz?deep=1",
      command: ["gunicorn", "-b", "0.0.0.0:5000", "app:app"],
    });
    expect(servicePort(run.topology.service)).toBe(5000);
  });

  it.each([
    "myapp",
    "myapp:1.2",
    "registry.local:5000/team/app:v1",
    "app@sha256:" + "a".repeat(64),
    "sha256:" + "b".repeat(64),
    "my_app/x-y.z:Tag_1",
  ])("accepts the reference %s", (image) => expect(issuesOf(imageRun({ image }))).toEqual([]));

  it.each(["MyApp:1", "app:1 ; rm -rf /", "-app", "app:", "app:-x", "", "app::1", "a".repeat(256)])(
    "refuses the reference %j, naming the field",
    (image) => {
      const issues = issuesOf(imageRun({ image }));
      expect(issues.length).toBeGreaterThan(0);
      expect(issues[0]!.message).toContain("service.image");
    },
  );

  it("needs an image", () => {
    expect(issuesOf({ topology: { service: { kind: "image" } }, workload: { vus: 1, request: {} } })).toContainEqual({
      path: "topology.service.image",
      message: "service.image is required with kind image: an image on the lab's engine, e.g. myapp:1.2",
    });
  });

  it("bounds the port", () => {
    expect(issuesOf(imageRun({ port: 0 }))).toEqual([
      { path: "topology.service.port", message: "service.port must be between 1 and 65535" },
    ]);
    expect(paths(imageRun({ port: 65536 }))).toEqual(["topology.service.port"]);
    expect(paths(imageRun({ port: 80.5 }))).toEqual(["topology.service.port"]);
  });

  it("refuses a health path that is not a plain URL path", () => {
    for (const healthPath of ["health", "/a b", '/"x"', "/x\r\nHost: evil", "/" + "a".repeat(2048)]) {
      expect(paths(imageRun({ healthPath }))).toEqual(["topology.service.healthPath"]);
    }
  });

  it("bounds env: names, count and value size", () => {
    expect(issuesOf(imageRun({ env: { "lower-case": "x" } }))[0]!.message).toMatch(/service\.env names must match \[A-Z_\]\[A-Z0-9_\]\*/);
    expect(paths(imageRun({ env: { "1ABC": "x" } }))).toEqual(["topology.service.env.1ABC"]);
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`V${i}`, "x"]));
    expect(issuesOf(imageRun({ env: many }))).toEqual([
      { path: "topology.service.env", message: "service.env must have at most 64 variables" },
    ]);
    expect(issuesOf(imageRun({ env: { BIG: "x".repeat(4097) } }))[0]!.message).toBe("service.env values must be at most 4,096 bytes");
    expect(issuesOf(imageRun({ env: { OK: "x".repeat(4096) } }))).toEqual([]);
    expect(paths(imageRun({ env: { N: 1 } }))).toEqual(["topology.service.env.N"]);
  });

  it("refuses env names the lab sets", () => {
    expect(issuesOf(imageRun({ env: { PORT: "1" } }))).toEqual([
      {
        path: "topology.service.env.PORT",
        message: "service.env.PORT is set by the lab (PORT is service.port; SCALELAB_* name the run and the replica)",
      },
    ]);
    expect(paths(imageRun({ env: { SCALELAB_REPLICA: "x" } }))).toEqual(["topology.service.env.SCALELAB_REPLICA"]);
  });

  it("takes a command as argv, not a shell line", () => {
    expect(paths(imageRun({ command: [] }))).toEqual(["topology.service.command"]);
    expect(paths(imageRun({ command: "gunicorn app:app" }))).toEqual(["topology.service.command"]);
    expect(paths(imageRun({ command: Array.from({ length: 65 }, () => "x") }))).toEqual(["topology.service.command"]);
  });

  it("refuses the testbed's knobs, naming each", () => {
    expect(issuesOf(imageRun({ cpuIterations: 5, logging: "async", threads: 2 }))).toEqual([
      {
        path: "topology.service.threads",
        message: "service.threads applies only to the lab's own servers (the image chooses its own threads; set them through service.env)",
      },
      {
        path: "topology.service.cpuIterations",
        message: "service.cpuIterations applies only to kind testbed (the image has no such knob)",
      },
      { path: "topology.service.logging", message: "service.logging applies only to kind testbed (the image has no such knob)" },
    ]);
  });

  it("refuses the image's fields for the lab's own servers", () => {
    expect(issuesOf({ topology: { service: { port: 9000, image: "x" } }, workload: { vus: 1 } })).toEqual([
      { path: "topology.service.image", message: "service.image applies only to kind image (the testbed server is the lab's own)" },
      { path: "topology.service.port", message: "service.port applies only to kind image (the testbed server is the lab's own)" },
    ]);
  });

  it("needs a request, a mix or a script: the built-in endpoints are the testbed's", () => {
    expect(paths(imageRun({}, { vus: 1 }))).toEqual(["workload.request"]);
  });

  it("refuses the testbed's downstream hand-off but takes a broker, a store and a cache beside it", () => {
    expect(paths(imageRun({}, undefined, { downstream: { mode: "sync" } }))).toEqual(["topology.downstream"]);
    expect(
      issuesOf(imageRun({}, undefined, { broker: { kind: "rabbitmq" }, storage: { kind: "postgres" }, cache: { kind: "redis" } })),
    ).toEqual([]);
    expect(paths({ topology: { service: {}, cache: { kind: "redis" } }, workload: { vus: 1 } })).toEqual(["topology.cache"]);
  });
});

describe("storage.init", () => {
  it("runs only with a store and is at most 1 MB", () => {
    expect(issuesOf(imageRun({}, undefined, { storage: { kind: "postgres", init: "CREATE TABLE t (id int);" } }))).toEqual([]);
    expect(issuesOf(imageRun({}, undefined, { storage: { init: "CREATE TABLE t (id int);" } }))).toEqual([
      { path: "topology.storage.init", message: "storage.init needs a store: set storage.kind to postgres or cassandra" },
    ]);
    expect(issuesOf(imageRun({}, undefined, { storage: { kind: "cassandra", init: "x".repeat(1024 * 1024 + 1) } }))).toEqual([
      { path: "topology.storage.init", message: "storage.init must be at most 1,048,576 bytes" },
    ]);
  });
});

describe("workload.request, requests and script", () => {
  it("fills a request's defaults", () => {
    const run = ZRunCreate.parse(imageRun({}, { request: {} }));
    expect(run.workload.request).toEqual({ method: "GET", path: "/" });
    expect(customWorkload(run.workload)).toBe("request");
  });

  it("takes a request with headers and a body, for k6 and wrk", () => {
    const request = {
      method: "POST",
      path: "/orders?x=1",
      headers: { "Content-Type": "application/json", "X-Trace": "1" },
      body: '{"qty":1}',
    };
    expect(issuesOf(imageRun({}, { request }))).toEqual([]);
    expect(issuesOf(imageRun({}, { loadgen: "wrk", vus: undefined, connections: 8, request }))).toEqual([]);
  });

  it("refuses a body on GET, headers that break the request line, and headers the load generator sets", () => {
    expect(issuesOf(imageRun({}, { request: { body: "x" } }))).toEqual([
      {
        path: "workload.request.body",
        message: "workload.request.body is not sent with GET or HEAD: use POST, PUT or PATCH, or leave the body out",
      },
    ]);
    expect(issuesOf(imageRun({}, { request: { headers: { "X-A": "1\r\nX-Injected: 2" } } }))[0]!.message).toBe(
      "workload.request.headers values must be one line (no CR or LF)",
    );
    expect(issuesOf(imageRun({}, { request: { headers: { "Bad Name": "1" } } }))[0]!.path).toBe("workload.request.headers.Bad Name");
    expect(issuesOf(imageRun({}, { request: { headers: { host: "x" } } }))[0]!.message).toBe(
      "workload.request.headers must not set host, content-length, transfer-encoding, connection: the load generator sets them",
    );
    expect(paths(imageRun({}, { request: { method: "TRACE" } }))).toEqual(["workload.request.method"]);
    expect(paths(imageRun({}, { request: { path: "/x", extra: 1 } }))).toEqual(["workload.request"]);
  });

  it("takes a weighted mix for k6 only", () => {
    const requests = [
      { path: "/a", weight: 3 },
      { method: "POST", path: "/b", body: "{}" },
    ];
    const run = ZRunCreate.parse(imageRun({}, { requests }));
    expect(run.workload.requests).toEqual([
      { method: "GET", path: "/a", weight: 3 },
      { method: "POST", path: "/b", body: "{}", weight: 1 },
    ]);
    expect(issuesOf(imageRun({}, { requests, loadgen: "wrk", vus: undefined, connections: 4 }))).toEqual([
      { path: "workload.requests", message: "workload.requests needs loadgen k6 (wrk sends one request template: use workload.request)" },
    ]);
    expect(paths(imageRun({}, { requests: [] }))).toEqual(["workload.requests"]);
    expect(paths(imageRun({}, { requests: [{ weight: 0 }] }))).toEqual(["workload.requests.0.weight"]);
  });

  it("takes a script without vus (it may declare its own scenarios), at most 256 KB", () => {
    const script = 'import http from "k6/http";\nexport default function () { http.get(`${__ENV.SCALELAB_TARGET}/`); }\n';
    expect(issuesOf(imageRun({}, { vus: undefined, script }))).toEqual([]);
    expect(issuesOf(imageRun({}, { script: "x".repeat(256 * 1024 + 1) }))).toEqual([
      { path: "workload.script", message: "workload.script must be at most 262,144 bytes" },
    ]);
    expect(paths(imageRun({}, { script: "  \n" }))).toEqual(["workload.script"]);
  });

  it("takes one of request, requests and script; never with a built-in endpoint or gRPC", () => {
    expect(issuesOf(imageRun({}, { request: {}, script: "export default function () {}" }))).toEqual([
      {
        path: "workload.script",
        message: "give one of workload.request, workload.requests or workload.script, not workload.request and workload.script",
      },
    ]);
    expect(paths({ topology: { service: {} }, workload: { vus: 1, endpoint: "cpu", request: {} } })).toEqual(["workload.endpoint"]);
    expect(paths({ topology: { service: {} }, workload: { vus: 1, protocol: "grpc", request: {} } })).toContain("workload.protocol");
  });

  it("lets the testbed and the hot-key servers take a request too", () => {
    expect(issuesOf({ topology: { service: {} }, workload: { vus: 1, request: { path: "/cpu" } } })).toEqual([]);
    expect(issuesOf({ topology: { service: { kind: "rack" } }, workload: { vus: 1, request: { path: "/key" } } })).toEqual([]);
  });
});
