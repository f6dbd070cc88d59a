import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { LineSplitter, ZImageBuildEvent, ZRunnableImage, type TImageBuildEvent, type TRunnableImage } from "@scalelab/scenarios/images";
import type Docker from "dockerode";
import { pack } from "tar-stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { appRouter } from "../routers/_app";
import type { Deps } from "../runtime";
import { createRestHandler, handleRest } from "../rest/handler";
import { openServiceDeps } from "../testing-services";
import { createImageUpload, type ImageUploadOptions } from "./upload";

// The app's handler (handleRest, below) checks API tokens: it runs here as scripts/up.sh and the test
// suite start the web, on loopback, where they are optional when asked on a loopback name
// (server/auth). Set before any module reads the environment (env.ts keeps its first reading).
vi.hoisted(() => vi.stubEnv("SCALELAB_LISTEN_HOST", "127.0.0.1"));

// The real Docker engine (SCALELAB_DOCKER_SOCKET), with the lab's base image built (`pnpm images`);
// Postgres and Redis as every web integration test has them. Every image this file builds is
// named sl-imagesapi-<id>-… and removed at the end.
const API = "http://lab.test/api/v1";
const run = randomUUID().slice(0, 8);
const name = (what: string) => `sl-imagesapi-${run}-${what}`;
const built = new Set<string>();

let deps: Deps;
let docker: Docker;
let close: () => Promise<void>;
let base: string;
let spoolDir: string;

function handler(opts: Partial<ImageUploadOptions> = {}) {
  return createRestHandler({
    router: appRouter,
    createContext: () => ({ deps }),
    raw: [{ method: "POST", path: "/images", handle: createImageUpload({ docker: () => docker, spoolDir, ...opts }) }],
  });
}
let rest: (req: Request) => Promise<Response>;

const bytes = (buffer: Buffer) => Uint8Array.from(buffer);

async function tarOf(files: Record<string, string>, opts: { gzip?: boolean } = {}): Promise<Uint8Array<ArrayBuffer>> {
  const archive = pack();
  for (const [file, content] of Object.entries(files)) archive.entry({ name: file }, content);
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(chunk as Buffer);
  const tar = Buffer.concat(chunks);
  return bytes(opts.gzip ? gzipSync(tar) : tar);
}

const upload = (tag: string | null, body: BodyInit, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  new Request(`${API}/images${tag === null ? "" : `?tag=${encodeURIComponent(tag)}`}`, {
    method: "POST",
    body,
    headers: { "content-type": "application/octet-stream", ...headers },
    signal,
    duplex: "half",
  } as RequestInit);

/** Reads an NDJSON answer line by line, each line checked against the catalog's schema. */
async function* events(res: Response): AsyncGenerator<TImageBuildEvent> {
  const lines = new LineSplitter();
  const decoder = new TextDecoder();
  const reader = res.body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const line of lines.push(decoder.decode(value, { stream: true }))) yield ZImageBuildEvent.parse(JSON.parse(line));
    }
  } finally {
    // Leaving early (return()) cancels the answer, as a browser closing the page does.
    await reader.cancel().catch(() => {});
  }
  for (const line of lines.end()) yield ZImageBuildEvent.parse(JSON.parse(line));
}

async function exists(ref: string): Promise<boolean> {
  try {
    await docker.getImage(ref).inspect();
    return true;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return false;
    throw err;
  }
}

async function listed(): Promise<TRunnableImage[]> {
  const res = await rest(new Request(`${API}/images`));
  expect(res.status).toBe(200);
  return ZRunnableImage.array().parse(await res.json());
}

/** Runs the image and returns what its CMD printed. */
async function output(ref: string): Promise<string> {
  const container = await docker.createContainer({ Image: ref, Labels: { "scalelab.test": "web-images" } });
  try {
    await container.start();
    await container.wait();
    const logs = await container.logs({ stdout: true, stderr: true });
    // The multiplexed log stream: an 8-byte header before each frame.
    let text = "";
    for (let i = 0; i + 8 <= logs.length;) {
      const size = logs.readUInt32BE(i + 4);
      text += logs.subarray(i + 8, i + 8 + size).toString();
      i += 8 + size;
    }
    return text;
  } finally {
    await container.remove({ force: true });
  }
}

beforeAll(async () => {
  ({ deps, close } = await openServiceDeps());
  docker = deps.docker;
  // Fails here, loudly, when the engine does not answer or the lab's images were never built.
  await docker.ping();
  const bases = await docker.listImages({ filters: { reference: ["scalelab/base"] } });
  base = bases.flatMap((i) => i.RepoTags ?? []).find((t) => t.startsWith("scalelab/base:"))!;
  expect(base, "the lab's base image (build it with `pnpm images`)").toBeDefined();
  spoolDir = await mkdtemp(path.join(tmpdir(), "scalelab-images-test-"));
  rest = handler();
});

afterAll(async () => {
  for (const ref of built)
    await docker
      .getImage(ref)
      .remove()
      .catch(() => {});
  await rm(spoolDir, { recursive: true, force: true });
  await close();
});

const HELLO = (from: string) => ({
  Dockerfile: `FROM ${from}\nCOPY hello.txt /\nCMD ["cat","/hello.txt"]\n`,
  "hello.txt": `hello from ${run}\n`,
});

describe("POST /images builds a user's image and GET /images lists it", () => {
  it("builds a tar.gz context, streaming its steps as NDJSON, and the image runs what was uploaded", async () => {
    const tag = name("hello:1");
    built.add(tag);
    const res = await rest(
      upload(tag, await tarOf(HELLO(base), { gzip: true }), { "content-type": "application/gzip", accept: "application/x-ndjson" }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    const seen: TImageBuildEvent[] = [];
    for await (const e of events(res)) seen.push(e);

    const steps = seen.filter((e) => e.type === "step");
    expect(steps.slice(0, 3).map((e) => e.instruction)).toEqual([`FROM ${base}`, "COPY hello.txt /", 'CMD ["cat","/hello.txt"]']);
    // The engine adds the build's labels as steps of their own, one a label.
    expect(
      steps
        .slice(3)
        .map((e) => e.instruction)
        .sort(),
    ).toEqual([expect.stringMatching(/^LABEL scalelab.uploaded-at=\d{4}-\d\d-\d\dT/), "LABEL scalelab.user-image=true"]);
    expect(steps.map((e) => `${e.step}/${e.totalSteps}`)).toEqual(["1/5", "2/5", "3/5", "4/5", "5/5"]);
    expect(seen).toContainEqual({ type: "output", line: `Successfully tagged ${tag}` });
    const result = seen.at(-1)!;
    expect(result).toMatchObject({ type: "result", reference: tag, id: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(seen.filter((e) => e.type === "result" || e.type === "error")).toHaveLength(1);

    const image = await docker.getImage(tag).inspect();
    expect(result).toMatchObject({ id: image.Id, size: image.Size });
    expect(image.Config.Labels?.["scalelab.user-image"]).toBe("true");
    expect(await output(tag)).toBe(`hello from ${run}\n`);

    const images = await listed();
    expect(images).toContainEqual(expect.objectContaining({ reference: tag, id: image.Id, size: image.Size, uploaded: true }));
    expect(images.filter((i) => i.reference.startsWith("scalelab/"))).toEqual([]);
    const created = images.map((i) => i.created);
    expect(created).toEqual([...created].sort().reverse());
  }, 120_000);

  it("builds a plain tar without NDJSON: 201 with the image; the default tag is latest", async () => {
    const tag = name("plain");
    built.add(`${tag}:latest`);
    const res = await rest(upload(tag, await tarOf(HELLO(base)), { "content-type": "application/x-tar" }));
    expect(res.status).toBe(201);
    const body = (await res.json()) as { reference: string; id: string; size: number; created: string };
    const image = await docker.getImage(`${tag}:latest`).inspect();
    expect(body).toEqual({ reference: `${tag}:latest`, id: image.Id, size: image.Size, created: new Date(image.Created).toISOString() });
  }, 120_000);

  it("a failing RUN is a 422 build_failed whose last lines hold the command, its output and the engine's error; no image", async () => {
    const tag = name("fails:1");
    built.add(tag);
    const dockerfile = `FROM ${base}\nRUN echo "about to fail ${run}" && exit 3\n`;
    const res = await rest(upload(tag, await tarOf({ Dockerfile: dockerfile })));
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: string; message: string; lastLines: string[] };
    expect(body.error).toBe("build_failed");
    expect(body.message).toBe(`The command '/bin/sh -c echo "about to fail ${run}" && exit 3' returned a non-zero code: 3`);
    expect(body.lastLines).toContain(`Step 2/4 : RUN echo "about to fail ${run}" && exit 3`);
    expect(body.lastLines).toContain(`about to fail ${run}`);
    expect(body.lastLines.at(-1)).toBe(body.message);
    expect(body.lastLines.length).toBeLessThanOrEqual(20);
    expect(await exists(tag)).toBe(false);
  }, 120_000);

  it("streams a failure as its last NDJSON line", async () => {
    const tag = name("fails:2");
    built.add(tag);
    const res = await rest(upload(tag, await tarOf({ Dockerfile: `FROM ${base}\nRUN exit 7\n` }), { accept: "application/x-ndjson" }));
    expect(res.status).toBe(200);
    const seen: TImageBuildEvent[] = [];
    for await (const e of events(res)) seen.push(e);
    expect(seen.at(-1)).toEqual({
      type: "error",
      message: "The command '/bin/sh -c exit 7' returned a non-zero code: 7",
      lastLines: expect.arrayContaining(["Step 2/4 : RUN exit 7"]),
    });
  }, 120_000);
});

describe("POST /images refuses before building", () => {
  it("a body over the limit is a 413 naming it: the upload is stopped, nothing is stored or built", async () => {
    const small = handler({ maxContextBytes: 4096 });
    const tag = name("big:1");
    const context = await tarOf({ ...HELLO(base), "big.bin": "x".repeat(20_000) });
    // Streamed without a Content-Length: counted while it arrives.
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= context.length) return controller.close();
        controller.enqueue(context.subarray(sent, sent + 1024));
        sent += 1024;
      },
    });
    const res = await small(upload(tag, body));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: "payload_too_large",
      message: "The build context must be at most 4 KiB (4096 bytes); the upload was stopped and nothing was built",
    });
    expect(sent).toBeLessThan(context.length);
    expect(await readdir(spoolDir)).toEqual([]);
    expect(await exists(tag)).toBe(false);

    // Declared too large: refused before a byte is read.
    const declared = await small(upload(tag, context, { "content-length": String(context.length) }));
    expect(declared.status).toBe(413);
  });

  it("a bad, missing or lab tag is a 400 naming the field tag", async () => {
    const context = await tarOf(HELLO(base));
    for (const [tag, message] of [
      [null, /^tag is required: name\[:tag\]/],
      ["MyApp:1", /^tag has an invalid name "MyApp"/],
      ["app:.x", /^tag has an invalid tag ".x"/],
      ["scalelab/testbed:mine", /^tag must not be in the lab's own namespace scalelab\//],
      ["docker.io/scalelab/base:x", /^tag must not be in the lab's own namespace/],
    ] as const) {
      const res = await rest(upload(tag, context));
      expect(res.status, String(tag)).toBe(400);
      const body = (await res.json()) as { error: string; issues: { path: string; message: string }[] };
      expect(body.error).toBe("invalid_input");
      expect(body.issues).toEqual([{ path: "tag", message: expect.stringMatching(message) }]);
    }
  });

  it("a tag naming the lab's own image under another name (as debian:bookworm-slim is its base) is refused", async () => {
    const alias = name("alias:1");
    await docker.getImage(base).tag({ repo: name("alias"), tag: "1" });
    try {
      const res = await rest(upload(alias, await tarOf(HELLO(base))));
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        issues: [{ path: "tag", message: `tag ${alias} names an image the lab itself uses; choose another name` }],
      });
      expect((await docker.getImage(alias).inspect()).Id).toBe((await docker.getImage(base).inspect()).Id);
    } finally {
      // Only the alias goes: the base keeps its own tag.
      await docker.getImage(alias).remove();
    }
    expect(await exists(base)).toBe(true);
  });

  it("a context without a Dockerfile, or a body that is no tar, is a 422 naming the Dockerfile; the wrong media type a 415", async () => {
    const tag = name("nodockerfile:1");
    const missing = await rest(upload(tag, await tarOf({ "app/Dockerfile": "FROM x\n", "hello.txt": "hi" }, { gzip: true })));
    expect(missing.status).toBe(422);
    expect(await missing.json()).toEqual({
      error: "invalid_context",
      message: "The build context has no Dockerfile at its root: put one in the directory you archive (tar -C dir -czf - .)",
    });
    for (const junk of [new TextEncoder().encode("not a tar at all"), new Uint8Array(0), bytes(gzipSync("zipped, not a tar"))]) {
      const res = await rest(upload(tag, junk));
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ error: "invalid_context", message: expect.stringContaining("not a tar archive") });
    }
    const text = await rest(upload(tag, await tarOf(HELLO(base)), { "content-type": "text/plain" }));
    expect(text.status).toBe(415);
    expect(await exists(tag)).toBe(false);
    expect(await readdir(spoolDir)).toEqual([]);
  });
});

describe("one build at a time, and a client that leaves cancels it", () => {
  const slow = (marker: string) => tarOf({ Dockerfile: `FROM ${base}\nRUN sleep 60 && echo ${marker}\n` });
  const buildContainers = async (marker: string) =>
    (await docker.listContainers({ all: true })).filter((c) => c.Command.includes(marker)).map((c) => c.Id);
  /** The slot is free again: an upload is answered on its own merits (no Dockerfile: 422, not 429). */
  const slotFree = () =>
    expect
      .poll(async () => (await rest(upload(name("after:1"), await tarOf({ "a.txt": "a" })))).status, { timeout: 20_000, interval: 250 })
      .toBe(422);

  it("a second upload during a build is a 429 with Retry-After; closing the NDJSON stream stops the build and removes its container", async () => {
    const tag = name("slow:1");
    built.add(tag);
    const marker = `slow-${run}`;
    const res = await rest(upload(tag, await slow(marker), { accept: "application/x-ndjson" }));
    expect(res.status).toBe(200);
    const stream = events(res);
    for (;;) {
      const { value, done } = await stream.next();
      expect(done).toBe(false);
      if (value?.type === "output" && value.line.startsWith(" ---> Running in")) break;
    }
    expect(await buildContainers(marker)).toHaveLength(1);

    const second = await rest(upload(name("second:1"), await tarOf(HELLO(base))));
    expect(second.status).toBe(429);
    expect(second.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await second.json()).toMatchObject({ error: "too_many_requests" });

    const closedAt = Date.now();
    await stream.return(undefined);
    await expect.poll(() => buildContainers(marker), { timeout: 20_000, interval: 250 }).toEqual([]);
    await slotFree();
    expect(Date.now() - closedAt).toBeLessThan(30_000);
    expect(await exists(tag)).toBe(false);
  }, 120_000);

  it("without NDJSON, a request whose client goes away (its signal) stops the build", async () => {
    const tag = name("slow:2");
    built.add(tag);
    const marker = `slow2-${run}`;
    const client = new AbortController();
    const answer = rest(upload(tag, await slow(marker), {}, client.signal));
    await expect.poll(() => buildContainers(marker), { timeout: 20_000, interval: 250 }).toHaveLength(1);
    client.abort();
    expect((await answer).status).toBe(499);
    await expect.poll(() => buildContainers(marker), { timeout: 20_000, interval: 250 }).toEqual([]);
    await slotFree();
    expect(await exists(tag)).toBe(false);
  }, 120_000);
});

describe("the route as the app serves it", () => {
  it("GET /images and POST /images share a path: OPTIONS and other methods name both", async () => {
    const LOOPBACK_API = "http://127.0.0.1/api/v1";
    const options = await handleRest(new Request(`${LOOPBACK_API}/images`, { method: "OPTIONS" }));
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS, POST");
    const put = await handleRest(new Request(`${LOOPBACK_API}/images`, { method: "PUT" }));
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD, OPTIONS, POST");
  });
});
