import { initTRPC } from "@trpc/server";
import { ZRunCreate } from "@scalelab/scenarios/contract";
import { createOpenApiFetchHandler, type OpenApiMeta } from "trpc-to-openapi";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../http";
import { appRouter } from "../routers/_app";
import { coercedSchemas, fakeDeps, JSON_TYPE, NOT_NUMBERS, post, runBody } from "../testing";
import { createTrpcHandler } from "../trpc-http";
import { createRestHandler } from "./handler";
import { openApiDocument } from "./openapi";
import type { Meta } from "../trpc";

const API = "http://lab.test/api/v1";
const TRPC = "http://lab.test/api/trpc";

function setup(opts: { fail?: string } = {}) {
  const { deps, calls } = fakeDeps(opts);
  const log = vi.fn();
  const rest = createRestHandler({ router: appRouter, createContext: () => ({ deps }), log });
  const trpc = createTrpcHandler({ router: appRouter, createContext: () => ({ deps }), log: () => {} });
  return { rest, trpc, calls, log };
}

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> });

beforeAll(() => {
  // The tests below send variations of this body; it must be valid for them to mean anything.
  const r = ZRunCreate.safeParse(runBody());
  if (!r.success) throw new Error(`runBody() no longer matches ZRunCreate: ${JSON.stringify(r.error.issues)}`);
});

describe("root cause: trpc-to-openapi's adapter coerces by mutating the schemas it is given", () => {
  it("sets _zod.def.coerce on the number schemas of a POST body's schema (why handler.ts does not use it)", async () => {
    const t = initTRPC.meta<OpenApiMeta>().create();
    const schema = z.object({ inner: z.object({ n: z.number().default(1) }) });
    const router = t.router({
      make: t.procedure
        .meta({ openapi: { method: "POST", path: "/make" } })
        .input(schema)
        .output(z.unknown())
        .mutation(({ input }) => input),
    });
    expect(schema.safeParse({ inner: { n: "5" } }).success).toBe(false);
    const req = post("http://x.test/api/make", JSON.stringify({ inner: { n: 1 } }));
    await createOpenApiFetchHandler({ endpoint: "/api", router, req, createContext: () => ({}) });
    // If this starts failing, trpc-to-openapi no longer mutates schemas (see utils/zod.js coerceSchema).
    expect(coercedSchemas(schema)).toEqual(["inner.n"]);
    expect(schema.safeParse({ inner: { n: "5" } }).success).toBe(true);
  });
});

describe("numbers are JSON numbers", () => {
  it.each(NOT_NUMBERS)("REST refuses replicas %s in a POST body, naming the field", async (_, replicas) => {
    const { rest, calls } = setup();
    const { status, body } = await json(await rest(post(`${API}/runs`, JSON.stringify(runBody(replicas)))));
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: "invalid_input", issues: [expect.objectContaining({ path: "topology.service.replicas" })] });
    expect(calls.created).toEqual([]);
  });

  it("REST takes a JSON number and answers 201", async () => {
    const { rest, calls } = setup();
    const { status, body } = await json(await rest(post(`${API}/runs`, JSON.stringify(runBody(3)))));
    expect(status).toBe(201);
    expect(body).toMatchObject({ status: "queued" });
    expect(calls.created[0]).toMatchObject({ topology: { service: { replicas: 3 } } });
  });

  it("tRPC refuses a string number too, after REST requests went through the same process", async () => {
    const { rest, trpc } = setup();
    await rest(post(`${API}/runs`, JSON.stringify(runBody(3))));
    await rest(post(`${API}/preview`, JSON.stringify(runBody(2))));
    for (const [, replicas] of NOT_NUMBERS) {
      const res = await trpc(post(`${TRPC}/runs.create`, JSON.stringify(runBody(replicas))));
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: { data: { code: string; issues: { path: string }[] } } };
      expect(error.data.code).toBe("BAD_REQUEST");
      expect(error.data.issues).toContainEqual(expect.objectContaining({ path: "topology.service.replicas" }));
    }
  });

  it("leaves the shared ZRunCreate unchanged after REST requests and the OpenAPI document", async () => {
    const { rest } = setup();
    await rest(post(`${API}/runs`, JSON.stringify(runBody(3))));
    await rest(post(`${API}/runs`, JSON.stringify(runBody("3"))));
    await rest(post(`${API}/preview`, JSON.stringify(runBody(1))));
    await rest(new Request(`${API}/runs?limit=5`));
    openApiDocument();
    expect(coercedSchemas(ZRunCreate)).toEqual([]);
    const parsed = ZRunCreate.safeParse(runBody("3"));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["topology", "service", "replicas"]);
  });

  it("still reads number query parameters of GET endpoints, decimal digits only", async () => {
    const { rest, calls } = setup();
    const ok = await rest(new Request(`${API}/runs?limit=5`));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ items: [], nextCursor: null });
    expect(calls.listed).toEqual([{ rows: 6 }]);
    const bad = await json(await rest(new Request(`${API}/runs?limit=lots`)));
    expect(bad).toEqual({
      status: 400,
      body: {
        error: "invalid_input",
        message: "Input validation failed",
        issues: [{ path: "limit", message: "limit must be a whole number between 1 and 500" }],
      },
    });
    for (const limit of ["0x10", "1e2", "5.0", "", "0"]) {
      expect((await rest(new Request(`${API}/runs?limit=${limit}`))).status, `limit=${limit}`).toBe(400);
    }
    expect(calls.listed).toHaveLength(1);
  });

  it("tRPC runs.list takes a JSON number for limit, not true or [5]", async () => {
    const { trpc, calls } = setup();
    const list = (input: unknown) => trpc(new Request(`${TRPC}/runs.list?input=${encodeURIComponent(JSON.stringify(input))}`));
    expect((await list({ limit: 5 })).status).toBe(200);
    for (const limit of [true, [5], "0x10"]) expect((await list({ limit })).status, JSON.stringify(limit)).toBe(400);
    expect(calls.listed).toEqual([{ rows: 6 }]);
  });
});

describe("NUL bytes", () => {
  it("in a body string is a 400 naming the field", async () => {
    const { rest, calls } = setup();
    const { status, body } = await json(await rest(post(`${API}/runs`, JSON.stringify({ ...runBody(), name: "a\u0000b" }))));
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: "invalid_input", issues: [{ path: "name", message: expect.stringContaining("NUL") }] });
    expect(calls.created).toEqual([]);
  });

  it("in a path id, percent-encoded, is a 400 naming id and reaches no query", async () => {
    const { rest, calls } = setup();
    for (const req of [
      new Request(`${API}/runs/%00`),
      new Request(`${API}/runs/ab%00cd/samples`),
      post(`${API}/runs/%00/cancel`, null, {}),
    ]) {
      const { status, body } = await json(await rest(req));
      expect(status).toBe(400);
      expect(body).toMatchObject({ error: "invalid_input", issues: [{ path: "id", message: "id must not contain NUL bytes" }] });
    }
    expect(calls.findUnique).toEqual([]);
  });

  it("in the ids of /compare is a 400 naming ids", async () => {
    const { rest, calls } = setup();
    for (const query of ["ids=a,b%00", "ids=a&ids=%00"]) {
      const { status, body } = await json(await rest(new Request(`${API}/compare?${query}`)));
      expect(status).toBe(400);
      expect(body).toMatchObject({ error: "invalid_input", issues: [{ path: expect.stringMatching(/^ids/) }] });
    }
    expect(calls.findMany).toEqual([]);
  });

  it("a malformed percent escape in a path id is a 400 naming id", async () => {
    const { rest } = setup();
    expect(await json(await rest(new Request(`${API}/runs/%E0%A4%A`)))).toEqual({
      status: 400,
      body: {
        error: "invalid_input",
        message: "Input validation failed",
        issues: [{ path: "id", message: "id is not valid percent-encoded UTF-8" }],
      },
    });
  });

  it("over tRPC is a BAD_REQUEST naming the field", async () => {
    const { trpc } = setup();
    const res = await trpc(new Request(`${TRPC}/runs.get?input=${encodeURIComponent(JSON.stringify({ id: "\u0000" }))}`));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { data: { code: "BAD_REQUEST", issues: [{ path: "id", message: "id must not contain NUL bytes" }] } },
    });
  });
});

describe("errors of the database never reach a client", () => {
  const SECRET = 'invalid byte sequence for encoding "UTF8": 0x00 at postgres://scalelab@10.1.2.3:5432';

  it("REST answers 500 with a generic message and logs the real error", async () => {
    const { rest, log } = setup({ fail: SECRET });
    const res = await rest(new Request(`${API}/runs/abc`));
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text)).toEqual({ error: "internal", message: "Internal server error" });
    expect(text).not.toContain("UTF8");
    expect(log).toHaveBeenCalledWith(expect.stringContaining("runs.get"), expect.objectContaining({ message: SECRET }));
  });

  it("tRPC answers 500 with a generic message and no stack", async () => {
    const { trpc } = setup({ fail: SECRET });
    const res = await trpc(new Request(`${TRPC}/runs.get?input=${encodeURIComponent(JSON.stringify({ id: "abc" }))}`));
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text)).toMatchObject({ error: { message: "Internal server error", data: { code: "INTERNAL_SERVER_ERROR" } } });
    expect(text).not.toContain("UTF8");
    expect(text).not.toContain("10.1.2.3");
    expect(JSON.parse(text).error.data.stack).toBeUndefined();
  });

  it("a failure outside any procedure is a generic 500 too", async () => {
    const log = vi.fn();
    const rest = createRestHandler({
      router: appRouter,
      createContext: () => {
        throw new Error(SECRET);
      },
      log,
    });
    const res = await rest(new Request(`${API}/runs`));
    expect(await json(res)).toEqual({ status: 500, body: { error: "internal", message: "Internal server error" } });
    expect(log).toHaveBeenCalledOnce();
  });
});

describe("content types", () => {
  const body = JSON.stringify(runBody());

  it.each([
    ["text/plain", "text/plain;charset=UTF-8"],
    ["form-urlencoded", "application/x-www-form-urlencoded"],
    ["multipart", "multipart/form-data; boundary=xyz"],
    ["JSON in UTF-16", "application/json; charset=utf-16"],
  ])("a %s body is a 415", async (_, type) => {
    const { rest, calls } = setup();
    const { status, body: err } = await json(await rest(post(`${API}/runs`, body, { "content-type": type })));
    expect(status).toBe(415);
    expect(err).toMatchObject({ error: "unsupported_media_type", message: expect.stringContaining("application/json") });
    expect(calls.created).toEqual([]);
  });

  it("a FormData body (what an HTML form posts) is a 415", async () => {
    const { rest } = setup();
    const form = new FormData();
    form.set("name", "x");
    const res = await rest(new Request(`${API}/runs`, { method: "POST", body: form }));
    expect(res.status).toBe(415);
  });

  it("a body without a content type is a 415, and is not read as JSON", async () => {
    const { rest, calls } = setup();
    // (A string body would get text/plain from fetch itself: bytes carry no content type.)
    const bytes = new TextEncoder().encode(body);
    const declared = await json(await rest(post(`${API}/runs`, bytes, { "content-length": String(bytes.byteLength) })));
    expect(declared.status).toBe(415);
    expect(declared.body).toMatchObject({ error: "unsupported_media_type", message: expect.stringContaining("Missing content-type") });
    const stream = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode("{}")), c.close()) });
    expect((await rest(post(`${API}/runs/abc/cancel`, stream, {}))).status).toBe(415);
    expect(calls.created).toEqual([]);
    expect(calls.findUnique).toEqual([]);
  });

  it("a truly empty POST needs no content type (curl -X POST …/cancel), unless a browser sends it cross-site", async () => {
    const { rest, calls } = setup();
    const bare = await json(await rest(post(`${API}/runs/abc/cancel`, null, {})));
    expect(bare).toEqual({ status: 404, body: { error: "not_found", message: "run abc not found" } });
    const declaredEmpty = await rest(post(`${API}/runs/abc/cancel`, null, { "content-length": "0" }));
    expect(declaredEmpty.status).toBe(404);
    const emptyJson = await rest(post(`${API}/runs/abc/cancel`, "", JSON_TYPE));
    expect(emptyJson.status).toBe(404);
    expect(calls.findUnique).toHaveLength(3);

    const crossSite: Record<string, string>[] = [
      { "sec-fetch-site": "cross-site", origin: "https://evil.example" },
      { origin: "https://evil.example" },
    ];
    for (const headers of crossSite) {
      const res = await json(await rest(post(`${API}/runs/abc/cancel`, null, headers)));
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ error: "unsupported_media_type" });
    }
    expect(calls.findUnique).toHaveLength(3);
  });

  it("an empty POST to /runs is invalid input naming the required fields, not a crash", async () => {
    const { rest } = setup();
    const { status, body } = await json(await rest(post(`${API}/runs`, null, {})));
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: "invalid_input", issues: expect.arrayContaining([expect.objectContaining({ path: "topology" })]) });
  });
});

describe("body size", () => {
  it("a Content-Length over 1 MiB is a 413 before the body is read", async () => {
    const { rest } = setup();
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({ pull: (c) => void (pulled++, c.enqueue(new Uint8Array(65_536))) });
    const res = await rest(post(`${API}/runs`, stream, { ...JSON_TYPE, "content-length": String(MAX_BODY_BYTES + 1) }));
    expect(await json(res)).toEqual({
      status: 413,
      body: { error: "payload_too_large", message: `The request body must be at most ${MAX_BODY_BYTES} bytes` },
    });
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it("a streamed body is counted and refused once past 1 MiB", async () => {
    const { rest } = setup();
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({ pull: (c) => void (pulled++, c.enqueue(new Uint8Array(65_536).fill(0x20))) });
    const res = await rest(post(`${API}/runs`, stream));
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThanOrEqual(MAX_BODY_BYTES / 65_536 + 2);
  });

  it("a body of exactly 1 MiB is read", async () => {
    const { rest } = setup();
    const base = JSON.stringify(runBody(2));
    const res = await rest(post(`${API}/runs`, base + " ".repeat(MAX_BODY_BYTES - base.length)));
    expect(res.status).toBe(201);
  });
});

describe("every error is JSON in the ZRestError shape", () => {
  it("invalid JSON is a 400 invalid_json", async () => {
    const { rest } = setup();
    const res = await json(await rest(post(`${API}/runs`, '{"name": ')));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "invalid_json", message: expect.stringContaining("not valid JSON") });
    const latin1 = await json(await rest(post(`${API}/runs`, new Uint8Array([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]))));
    expect(latin1).toEqual({ status: 400, body: { error: "invalid_json", message: "The request body is not valid UTF-8" } });
  });

  it("a body that is not an object is invalid input", async () => {
    const { rest } = setup();
    for (const body of ["[1]", '"x"', "3", "null"]) {
      const res = await json(await rest(post(`${API}/runs/abc/cancel`, body)));
      expect(res).toEqual({
        status: 400,
        body: {
          error: "invalid_input",
          message: "Input validation failed",
          issues: [{ path: "", message: "the body must be a JSON object" }],
        },
      });
    }
  });

  it("an unknown route is a 404", async () => {
    const { rest } = setup();
    for (const req of [new Request(`${API}/nope`), new Request(`${API}`), new Request(`${API}/runs/a/b/c`), post(`${API}/nope`, "{}")]) {
      const res = await json(await rest(req));
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: "not_found" });
    }
  });

  it("a method a path does not have is a 405 with Allow; OPTIONS lists the methods", async () => {
    const { rest } = setup();
    const del = await rest(new Request(`${API}/runs`, { method: "DELETE" }));
    expect(del.status).toBe(405);
    expect(del.headers.get("allow")).toBe("GET, HEAD, OPTIONS, POST");
    expect(await del.json()).toMatchObject({ error: "method_not_allowed" });
    const getCancel = await rest(new Request(`${API}/runs/abc/cancel`));
    expect(getCancel.status).toBe(405);
    expect(getCancel.headers.get("allow")).toBe("OPTIONS, POST");
    const options = await rest(new Request(`${API}/runs/abc`, { method: "OPTIONS" }));
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("DELETE, GET, HEAD, OPTIONS");
  });

  it("HEAD is answered like GET", async () => {
    const { rest } = setup();
    expect((await rest(new Request(`${API}/host`, { method: "HEAD" }))).status).toBe(200);
  });
});

describe("the OpenAPI document", () => {
  it("still generates, with every endpoint and the error body on error responses", () => {
    const doc = openApiDocument();
    expect(Object.keys(doc.paths ?? {})).toEqual(
      expect.arrayContaining(["/compare", "/host", "/preview", "/runs", "/runs/{id}", "/runs/{id}/cancel", "/runs/{id}/samples"]),
    );
    const params = (doc.paths!["/runs"] as { get: { parameters: { name: string; required?: boolean; schema: unknown }[] } }).get.parameters;
    expect(params.map((p) => p.name)).toEqual(["cursor", "limit", "order", "status", "q", "experiment", "loadgen", "from", "to"]);
    expect(params.every((p) => !p.required)).toBe(true);
    expect(params.find((p) => p.name === "order")).toMatchObject({
      schema: { type: "string", enum: ["newest", "oldest"], default: "newest" },
    });
    const experimentParams = (doc.paths!["/experiments"] as { get: { parameters: { name: string }[] } }).get.parameters;
    expect(experimentParams.map((p) => p.name)).toContain("order");
    expect(params.find((p) => p.name === "limit")).toMatchObject({ schema: { type: "integer", minimum: 1, maximum: 500, default: 100 } });
    expect(params.find((p) => p.name === "status")).toMatchObject({
      schema: { type: "array", items: { type: "string", enum: ["queued", "running", "succeeded", "failed", "cancelled", "interrupted"] } },
    });
    const del = (doc.paths!["/runs/{id}"] as Record<string, { responses: Record<string, unknown> }>).delete!;
    expect(Object.keys(del.responses)).toEqual(expect.arrayContaining(["200", "202", "404"]));
    const create = (doc.paths!["/runs"] as Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>)
      .post!;
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(["201", "400", "413", "415"]));
    expect(create.responses["415"]!.content!["application/json"]!.schema).toMatchObject({
      properties: { error: {}, message: {}, issues: {} },
    });
  });

  it("declares the quotas' 422 and 429 (with Retry-After) on every operation that adds work to the queue, and 422 on the experiment's preview", () => {
    const doc = openApiDocument();
    type Op = {
      responses: Record<string, { headers?: Record<string, { required?: boolean }>; content?: Record<string, { schema: unknown }> }>;
    };
    const post = (path: string) => (doc.paths![path] as Record<string, Op>).post!;
    for (const path of ["/runs", "/runs/{id}/rerun", "/experiments", "/presets/{name}/run"]) {
      const { responses } = post(path);
      expect(Object.keys(responses), path).toEqual(expect.arrayContaining(["422", "429"]));
      expect(responses["429"]!.headers?.["Retry-After"], path).toMatchObject({ required: true });
      expect(responses["429"]!.content!["application/json"]!.schema, path).toMatchObject({ properties: { error: {}, issues: {} } });
    }
    expect(Object.keys(post("/experiments/preview").responses)).toContain("422");
    expect(Object.keys(post("/experiments/preview").responses)).not.toContain("429");
  });
});

/** JSON text nesting `levels` objects: `{"a":{"a":…1…}}`. */
const deep = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);

const experimentBody = (over: Record<string, string> = {}) =>
  `{"name":"deep","base":${over.base ?? JSON.stringify(runBody())},"variants":[{"name":"a","patch":${over.patch ?? "{}"}}]}`;

describe("JSON nested too deep", () => {
  const tooDeep = { error: "invalid_json", message: expect.stringContaining(`more than ${MAX_JSON_DEPTH} levels deep`) };

  it.each([
    ["POST /experiments base", "/experiments", experimentBody({ base: deep(10_000) })],
    ["POST /experiments variants[].patch", "/experiments", experimentBody({ patch: deep(10_000) })],
    ["POST /experiments/preview base", "/experiments/preview", experimentBody({ base: deep(10_000) })],
    ["POST /presets/{name}/run patch", "/presets/replicas-one-host/run", `{"patch":${deep(10_000)}}`],
    ["POST /runs", "/runs", `{"name":${deep(10_000)}}`],
    ["POST /preview", "/preview", `{"topology":${deep(10_000)}}`],
    ["POST /runs/{id}/cancel", "/runs/abc/cancel", `[${"[".repeat(5000)}${"]".repeat(5000)}]`],
  ])("%s: 10,000 levels are a 400 naming the limit, and nothing runs", async (_, path, body) => {
    const { rest, calls, log } = setup();
    const res = await json(await rest(post(`${API}${path}`, body)));
    expect(res).toEqual({ status: 400, body: tooDeep });
    expect(calls.created).toEqual([]);
    expect(calls.findUnique).toEqual([]);
    expect(log).not.toHaveBeenCalled();
  });

  it("the limit itself is read: a patch nested up to it reaches the experiment's own checks", async () => {
    const { rest } = setup();
    // experimentBody adds 3 levels ({ variants: [ { patch: … } ] }) around the patch.
    const res = await json(await rest(post(`${API}/experiments/preview`, experimentBody({ patch: deep(MAX_JSON_DEPTH - 3) }))));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "invalid_input", issues: [expect.objectContaining({ path: "variants.0.patch.a" })] });
  });

  it("root cause: without the limit the recursive key check of an experiment overflows the stack (a 500)", async () => {
    const { deps } = fakeDeps();
    const log = vi.fn();
    const rest = createRestHandler({ router: appRouter, createContext: () => ({ deps }), log, maxJsonDepth: Infinity });
    const res = await rest(post(`${API}/experiments/preview`, experimentBody({ base: deep(10_000) })));
    expect(res.status).toBe(500);
    expect(String(log.mock.calls[0]?.[1])).toContain("Maximum call stack size exceeded");
  });
});

describe("keys a patch merge would drop", () => {
  it("a sweep over workload.constructor or .prototype is a 400 naming the field, as workload.foo is", async () => {
    const { rest } = setup();
    const sweep = (field: string) => JSON.stringify({ name: "s", base: runBody(), sweep: [{ field, values: [1, 2] }], repetitions: 1 });
    for (const field of ["workload.constructor", "topology.service.prototype"]) {
      for (const path of ["/experiments", "/experiments/preview"]) {
        const res = await json(await rest(post(`${API}${path}`, sweep(field))));
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({
          error: "invalid_input",
          issues: [{ path: "sweep.0.field", message: expect.stringContaining(field) }],
        });
      }
    }
    const foo = await json(await rest(post(`${API}/experiments/preview`, sweep("workload.foo"))));
    expect(foo.status).toBe(400);
    expect(JSON.stringify(foo.body)).toContain("workload.foo");
  });

  it.each(["constructor", "__proto__", "prototype"])("a preset's patch with %s is refused as /experiments refuses it", async (key) => {
    const { rest, calls } = setup();
    const patch = `{"workload":{"${key}":{"durationSeconds":5}}}`;
    const preset = await json(await rest(post(`${API}/presets/replicas-one-host/run`, `{"patch":${patch}}`)));
    const experiment = await json(await rest(post(`${API}/experiments`, experimentBody({ patch }))));
    expect(preset).toEqual({
      status: 400,
      body: {
        error: "invalid_input",
        message: "Input validation failed",
        issues: [{ path: `patch.workload.${key}`, message: `patch.workload.${key}: this key is not allowed` }],
      },
    });
    expect(experiment.body).toMatchObject({ issues: [{ path: `variants.0.patch.workload.${key}` }] });
    expect(calls.created).toEqual([]);
  });
});

describe("routes", () => {
  it("a literal path wins over a templated one: /experiments/preview is not /experiments/{id}", async () => {
    const { rest } = setup();
    const options = await rest(new Request(`${API}/experiments/preview`, { method: "OPTIONS" }));
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("OPTIONS, POST");
    const get = await rest(new Request(`${API}/experiments/preview`));
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("OPTIONS, POST");
    expect((await rest(new Request(`${API}/experiments/other`, { method: "OPTIONS" }))).headers.get("allow")).toBe(
      "DELETE, GET, HEAD, OPTIONS",
    );
  });

  it("DELETE reaches its procedure with the path's id, ignores a body, and answers 202 when the result says it is not complete", async () => {
    const t = initTRPC.meta<Meta>().create();
    const seen: unknown[] = [];
    const router = t.router({
      remove: t.procedure
        .meta({ openapi: { method: "DELETE", path: "/things/{id}" }, accepted: (data) => (data as { deleted: boolean }).deleted === false })
        .input(z.object({ id: z.string() }))
        .output(z.object({ id: z.string(), deleted: z.boolean() }))
        .mutation(({ input }) => (seen.push(input), { id: input.id, deleted: input.id !== "busy" })),
    });
    const rest = createRestHandler({ router, createContext: () => ({ deps: fakeDeps().deps }) });
    const done = await rest(new Request(`${API}/things/a%20b`, { method: "DELETE", body: '{"id":"other"}', headers: JSON_TYPE }));
    expect([done.status, await done.json()]).toEqual([200, { id: "a b", deleted: true }]);
    const busy = await rest(new Request(`${API}/things/busy`, { method: "DELETE" }));
    expect([busy.status, await busy.json()]).toEqual([202, { id: "busy", deleted: false }]);
    expect(seen).toEqual([{ id: "a b" }, { id: "busy" }]);
  });

  it("DELETE /runs/{id} and /experiments/{id} of an unknown id are 404s naming it", async () => {
    const { rest } = setup();
    for (const [path, what] of [
      ["runs", "run"],
      ["experiments", "experiment"],
    ]) {
      const res = await json(await rest(new Request(`${API}/${path}/nope`, { method: "DELETE" })));
      expect(res).toEqual({ status: 404, body: { error: "not_found", message: `${what} nope not found` } });
    }
  });

  it("a raw route takes its method and path before the procedures, and the path's other methods still answer", async () => {
    const { deps } = fakeDeps();
    const seen: Request[] = [];
    const handle = async (req: Request) => (seen.push(req), new Response(null, { status: 202 }));
    const rest = createRestHandler({
      router: appRouter,
      createContext: () => ({ deps }),
      raw: [
        { method: "POST", path: "/images", handle },
        { method: "POST", path: "/elsewhere", handle },
      ],
    });
    expect((await rest(post(`${API}/images/?tag=a`, "bytes", { "content-type": "application/x-tar" }))).status).toBe(202);
    expect(await seen[0]!.text()).toBe("bytes");
    for (const [path, allow] of [
      ["/images", "GET, HEAD, OPTIONS, POST"],
      ["/elsewhere", "OPTIONS, POST"],
    ]) {
      const put = await rest(new Request(`${API}${path}`, { method: "PUT" }));
      expect(put.status, path).toBe(405);
      expect(put.headers.get("allow"), path).toBe(allow);
      expect((await rest(new Request(`${API}${path}`, { method: "OPTIONS" }))).headers.get("allow"), path).toBe(allow);
    }
    expect((await rest(post(`${API}/images/x`, "{}"))).status).toBe(404);
    expect(seen).toHaveLength(1);
  });
});

describe("the OpenAPI document says what the handler does", () => {
  type Op = {
    parameters?: { in: string; name: string; required?: boolean; example?: unknown }[];
    requestBody?: { required: boolean; content?: Record<string, { examples?: Record<string, { summary: string; value: unknown }> }> };
    responses: Record<string, { content?: Record<string, { schema: { type?: string } }> }>;
  };
  const op = (path: string, method: string) => (openApiDocument().paths![path] as Record<string, Op>)[method]!;

  it("an export's JSON is an object, its CSV and HTML text", async () => {
    for (const path of ["/runs/{id}/export", "/experiments/{id}/export"]) {
      const content = op(path, "get").responses["200"]!.content!;
      expect(content["application/json; charset=utf-8"]!.schema.type).toBe("object");
      expect(content["text/csv; charset=utf-8"]!.schema.type).toBe("string");
    }
  });

  it("/compare's ids is required, as the handler refuses its absence", async () => {
    expect(op("/compare", "get").parameters).toContainEqual(expect.objectContaining({ name: "ids", in: "query", required: true }));
    const { rest } = setup();
    expect((await rest(new Request(`${API}/compare`))).status).toBe(400);
  });

  it("/compare's ids: the document's pattern of one value holds exactly for the values the handler takes as one id", async () => {
    const ids = op("/compare", "get").parameters!.find((p) => p.name === "ids") as unknown as { schema: { items: { pattern: string } } };
    const pattern = new RegExp(ids.schema.items.pattern);
    const { rest } = setup();
    // Found by the contract fuzz: `ids=,` was one value for the document and two (empty) ids for the handler.
    for (const value of [",", "a,b", " ", "", "\ufeff", " , "]) {
      expect(pattern.test(value), JSON.stringify(value)).toBe(false);
    }
    for (const value of ["a", " a ", "run-1"]) {
      expect(pattern.test(value), JSON.stringify(value)).toBe(true);
      const res = await rest(new Request(`${API}/compare?ids=${encodeURIComponent(value)}&ids=b`));
      // Taken as ids, unknown to the (empty) database.
      expect(res.status, JSON.stringify(value)).toBe(404);
      expect(await res.json()).toMatchObject({
        error: "not_found",
        message: expect.stringMatching(/^ids must name existing runs; no run has the id /),
      });
    }
    for (const value of [",", " "]) {
      expect((await rest(new Request(`${API}/compare?ids=${encodeURIComponent(value)}&ids=b`))).status).toBe(400);
    }
  });

  it("every operation with a parameter documents the 400 of an invalid one, e.g. an id over 64 characters", async () => {
    const doc = openApiDocument();
    for (const [path, item] of Object.entries(doc.paths!)) {
      for (const [method, o] of Object.entries(item as Record<string, Op>)) {
        if (o.parameters?.length) expect(Object.keys(o.responses), `${method} ${path}`).toContain("400");
      }
    }
    const { rest } = setup();
    const res = await json(await rest(new Request(`${API}/runs/${"a".repeat(65)}`)));
    expect(res).toMatchObject({ status: 400, body: { error: "invalid_input", issues: [expect.objectContaining({ path: "id" })] } });
  });

  it("each example in the document is accepted (those that create experiments: experiments.integration.test.ts)", async () => {
    const { rest } = setup();
    const examplesOf = (path: string) => op(path, "post").requestBody!.content!["application/json"]!.examples!;
    expect(examplesOf("/experiments")).toEqual(examplesOf("/experiments/preview"));
    expect(Object.keys(examplesOf("/runs")).length).toBeGreaterThan(1);
    for (const path of ["/runs", "/preview", "/experiments/preview"]) {
      for (const [name, example] of Object.entries(examplesOf(path))) {
        expect(example.summary).toBeTruthy();
        const res = await rest(post(`${API}${path}`, JSON.stringify(example.value)));
        expect(res.status, `${path} ${name}: ${await res.clone().text()}`).toBeLessThan(300);
      }
    }
    expect(op("/presets/{name}/run", "post").parameters).toContainEqual(
      expect.objectContaining({ name: "name", example: "cpu-limit-replicas" }),
    );
  });

  it("a preset run's body is optional (none runs the preset as it is); a run's or an experiment's is required", () => {
    expect(op("/presets/{name}/run", "post").requestBody!.required).toBe(false);
    expect(op("/runs", "post").requestBody!.required).toBe(true);
    expect(op("/experiments", "post").requestBody!.required).toBe(true);
  });
});
