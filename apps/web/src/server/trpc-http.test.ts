import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "./http";
import { appRouter } from "./routers/_app";
import { fakeDeps, JSON_TYPE, post, runBody } from "./testing";
import { createTrpcHandler } from "./trpc-http";

const TRPC = "http://lab.test/api/trpc";

function setup() {
  const { deps, calls } = fakeDeps();
  return { trpc: createTrpcHandler({ router: appRouter, createContext: () => ({ deps }), log: () => {} }), calls };
}

type ErrorBody = { error: { message: string; data: { code: string; httpStatus: number } } };
const errorOf = async (res: Response) => ((await res.json()) as ErrorBody).error;

describe("/api/trpc refuses what a page of another site could send without a preflight", () => {
  it.each([
    ["text/plain", "text/plain;charset=UTF-8"],
    ["form-urlencoded", "application/x-www-form-urlencoded"],
    ["multipart", "multipart/form-data; boundary=xyz"],
    ["no content type", null],
  ])("a %s mutation is a 415 in tRPC's error shape, and nothing runs", async (_, type) => {
    const { trpc, calls } = setup();
    const headers: Record<string, string> = type ? { "content-type": type } : {};
    const res = await trpc(post(`${TRPC}/runs.create`, new TextEncoder().encode(JSON.stringify(runBody())), headers));
    expect(res.status).toBe(415);
    expect(await errorOf(res)).toMatchObject({ data: { code: "UNSUPPORTED_MEDIA_TYPE", httpStatus: 415 } });
    expect(calls.created).toEqual([]);
  });

  it("a FormData body (an HTML form's multipart POST) is a 415", async () => {
    const { trpc, calls } = setup();
    const form = new FormData();
    form.set("id", "abc");
    const res = await trpc(new Request(`${TRPC}/runs.cancel`, { method: "POST", body: form }));
    expect(res.status).toBe(415);
    expect(calls.findUnique).toEqual([]);
  });

  it("a mutation cannot be called with GET", async () => {
    const { trpc, calls } = setup();
    const res = await trpc(new Request(`${TRPC}/runs.create?input=${encodeURIComponent(JSON.stringify(runBody()))}`));
    expect(res.status).toBe(405);
    expect(calls.created).toEqual([]);
  });

  it("a JSON mutation and a GET query still work, batched or not", async () => {
    const { trpc, calls } = setup();
    const created = await trpc(post(`${TRPC}/runs.create`, JSON.stringify(runBody(2))));
    expect(created.status).toBe(200);
    expect(await created.json()).toMatchObject({ result: { data: { status: "queued" } } });
    const batch = await trpc(post(`${TRPC}/runs.create,runs.create?batch=1`, JSON.stringify({ 0: runBody(1), 1: runBody("1") })));
    expect(batch.status).toBe(207);
    const [ok, bad] = (await batch.json()) as [{ result?: unknown }, { error?: { data: { issues: { path: string }[] } } }];
    expect(ok.result).toBeDefined();
    expect(bad.error?.data.issues[0]?.path).toBe("topology.service.replicas");
    const list = await trpc(new Request(`${TRPC}/runs.list?input=${encodeURIComponent(JSON.stringify({ limit: 5 }))}`));
    expect(list.status).toBe(200);
    expect(calls.listed).toEqual([{ rows: 6 }]);
  });
});

describe("/api/trpc body size", () => {
  it("a Content-Length over 1 MiB is a 413 before the body is read", async () => {
    const { trpc } = setup();
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({ pull: (c) => void (pulled++, c.enqueue(new Uint8Array(65_536))) });
    const res = await trpc(post(`${TRPC}/runs.create`, stream, { ...JSON_TYPE, "content-length": String(MAX_BODY_BYTES + 1) }));
    expect(res.status).toBe(413);
    expect(await errorOf(res)).toMatchObject({ data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413 } });
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it("a streamed body is counted and refused once past 1 MiB", async () => {
    const { trpc, calls } = setup();
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({ pull: (c) => void (pulled++, c.enqueue(new Uint8Array(65_536).fill(0x20))) });
    const res = await trpc(post(`${TRPC}/runs.create`, stream));
    expect(res.status).toBe(413);
    expect(await errorOf(res)).toMatchObject({
      message: `The request body must be at most ${MAX_BODY_BYTES} bytes`,
      data: { code: "PAYLOAD_TOO_LARGE" },
    });
    expect(pulled).toBeLessThanOrEqual(MAX_BODY_BYTES / 65_536 + 2);
    expect(calls.created).toEqual([]);
  });

  it("a body of exactly 1 MiB is read", async () => {
    const { trpc } = setup();
    const base = JSON.stringify(runBody(2));
    const res = await trpc(post(`${TRPC}/runs.create`, base + " ".repeat(MAX_BODY_BYTES - base.length)));
    expect(res.status).toBe(200);
  });
});

describe("/api/trpc JSON depth", () => {
  const deep = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
  const tooDeep = {
    data: { code: "BAD_REQUEST", httpStatus: 400 },
    message: expect.stringContaining(`more than ${MAX_JSON_DEPTH} levels`),
  };

  it.each([
    ["experiments.create", `{"name":"x","base":${deep(10_000)}}`],
    ["experiments.preview", `{"name":"x","base":{},"variants":[{"name":"a","patch":${deep(10_000)}}]}`],
    ["presets.run", `{"name":"hot-key","patch":${deep(10_000)}}`],
  ])("a %s body nested 10,000 levels is a 400 naming the limit", async (procedure, body) => {
    const { trpc, calls } = setup();
    const res = await trpc(post(`${TRPC}/${procedure}`, body));
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject(tooDeep);
    expect(calls.created).toEqual([]);
  });

  it("so is a GET query's input, and a batch's", async () => {
    const { trpc } = setup();
    const input = encodeURIComponent(`{"topology":${deep(2_000)}}`);
    const res = await trpc(new Request(`${TRPC}/preview.render?input=${input}`));
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject(tooDeep);
    const batch = await trpc(new Request(`${TRPC}/preview.render?batch=1&input=${encodeURIComponent(`{"0":${deep(40)}}`)}`));
    expect(batch.status).toBe(400);
  });
});
