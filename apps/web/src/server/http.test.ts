import { describe, expect, it } from "vitest";
import {
  BodyTooLargeError,
  JsonDepthGauge,
  JsonTooDeepError,
  checkJsonDepth,
  isCrossSiteBrowserRequest,
  isJsonContentType,
  mediaType,
  readBody,
  withBodyLimit,
} from "./http";

const URL_ = "http://lab.test/api/v1/runs";

/** A body delivered in `chunks` chunks of `size` bytes, counting how many were pulled. */
function streamed(chunks: number, size: number) {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks) return controller.close();
      pulled++;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
  return { body, pulled: () => pulled };
}

const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request(URL_, { method: "POST", body, headers, duplex: "half" } as RequestInit);

describe("content types", () => {
  it("reads the media type without parameters, case-insensitively", () => {
    expect(mediaType("Application/JSON; charset=UTF-8")).toBe("application/json");
    expect(mediaType(" text/plain ")).toBe("text/plain");
    expect(mediaType("")).toBeNull();
    expect(mediaType(null)).toBeNull();
  });

  it("accepts application/json in UTF-8 only", () => {
    expect(isJsonContentType("application/json")).toBe(true);
    expect(isJsonContentType("application/json; charset=utf-8")).toBe(true);
    expect(isJsonContentType('application/json;charset="UTF-8"')).toBe(true);
    expect(isJsonContentType("application/json; charset=utf-16")).toBe(false);
    expect(isJsonContentType("text/plain")).toBe(false);
    expect(isJsonContentType("application/x-www-form-urlencoded")).toBe(false);
    expect(isJsonContentType("multipart/form-data; boundary=x")).toBe(false);
    expect(isJsonContentType("application/jsonp")).toBe(false);
    expect(isJsonContentType(null)).toBe(false);
  });
});

describe("readBody", () => {
  it("returns the bytes of a body within the limit, the limit included", async () => {
    expect(await readBody(post("x".repeat(1024)), 1024)).toHaveLength(1024);
    expect(await readBody(post(null), 0)).toHaveLength(0);
  });

  it("refuses a Content-Length over the limit without reading the body", async () => {
    const { body, pulled } = streamed(4, 1024);
    const req = post(body, { "content-length": "4096" });
    await expect(readBody(req, 1024)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(pulled()).toBeLessThanOrEqual(1); // a stream may pre-pull one chunk, never the body
  });

  it("stops reading a streamed body as soon as it passes the limit", async () => {
    const { body, pulled } = streamed(1000, 1024);
    await expect(readBody(post(body), 4096)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(pulled()).toBeLessThan(10);
  });
});

describe("withBodyLimit", () => {
  const tooLarge = () => new Error("too large");

  it("passes a body within the limit through unchanged", async () => {
    const req = withBodyLimit(post('{"a":1}', { "content-type": "application/json" }), 7, tooLarge);
    expect(await req.json()).toEqual({ a: 1 });
    expect(req.headers.get("content-type")).toBe("application/json");
  });

  it("fails the reader with the given error past the limit, streamed or declared", async () => {
    const { body, pulled } = streamed(1000, 1024);
    await expect(withBodyLimit(post(body), 4096, tooLarge).text()).rejects.toThrow("too large");
    expect(pulled()).toBeLessThan(10);
    await expect(withBodyLimit(post("x".repeat(10), { "content-length": "10" }), 4, tooLarge).text()).rejects.toThrow("too large");
  });
});

describe("isCrossSiteBrowserRequest", () => {
  const req = (headers: Record<string, string>) => new Request(URL_, { method: "POST", headers });

  it("is false for programs (no Sec-Fetch-Site, no Origin) and for same-origin pages", () => {
    expect(isCrossSiteBrowserRequest(req({}))).toBe(false);
    expect(isCrossSiteBrowserRequest(req({ "sec-fetch-site": "same-origin", origin: "http://lab.test" }))).toBe(false);
    expect(isCrossSiteBrowserRequest(req({ "sec-fetch-site": "none" }))).toBe(false);
    expect(isCrossSiteBrowserRequest(req({ origin: "http://lab.test" }))).toBe(false);
  });

  it("is true for pages of another origin, even of the same site", () => {
    expect(isCrossSiteBrowserRequest(req({ "sec-fetch-site": "cross-site", origin: "https://evil.example" }))).toBe(true);
    expect(isCrossSiteBrowserRequest(req({ "sec-fetch-site": "same-site", origin: "http://other.lab.test" }))).toBe(true);
    expect(isCrossSiteBrowserRequest(req({ origin: "https://evil.example" }))).toBe(true);
    expect(isCrossSiteBrowserRequest(req({ origin: "null" }))).toBe(true);
  });
});

describe("JSON depth", () => {
  const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
  const objects = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);

  it("accepts JSON nested up to the limit and refuses one level more, naming the limit", () => {
    expect(() => checkJsonDepth(nested(32), 32)).not.toThrow();
    expect(() => checkJsonDepth(objects(32), 32)).not.toThrow();
    expect(() => checkJsonDepth(nested(33), 32)).toThrow(JsonTooDeepError);
    expect(() => checkJsonDepth(objects(10_000), 32)).toThrow("more than 32 levels deep");
  });

  it("counts siblings as one level and skips brackets inside strings, escaped quotes included", () => {
    expect(() => checkJsonDepth(`[${"[],".repeat(1000)}[]]`, 2)).not.toThrow();
    expect(() => checkJsonDepth(JSON.stringify({ a: "[[[[[[", b: '"{{{{{{\\"', c: ['"[[[['] }), 2)).not.toThrow();
    expect(() => checkJsonDepth(JSON.stringify({ a: "\\", b: [[[1]]] }), 3)).toThrow(JsonTooDeepError);
  });

  it("reads UTF-8 bytes as well as text, across chunk boundaries, and 10,000 levels without recursion", () => {
    const bytes = new TextEncoder().encode(`{"é": "\\\"[[[", "x": ${nested(3)}}`);
    expect(() => checkJsonDepth(bytes, 4)).not.toThrow();
    expect(() => checkJsonDepth(bytes, 3)).toThrow(JsonTooDeepError);
    const gauge = new JsonDepthGauge(4);
    for (const b of bytes) gauge.feed(new Uint8Array([b]));
    expect(() => new JsonDepthGauge(1_000_000).feed(nested(100_000))).not.toThrow();
  });

  it("withBodyLimit errors a body nested too deep as soon as the gauge passes the limit", async () => {
    const tooDeep = new Error("too deep");
    const req = withBodyLimit(post(nested(50)), 1024, () => new Error("too large"), { limit: 32, error: () => tooDeep });
    await expect(req.text()).rejects.toBe(tooDeep);
    const ok = withBodyLimit(post(nested(32)), 1024, () => new Error("too large"), { limit: 32, error: () => tooDeep });
    expect(await ok.text()).toBe(nested(32));
  });
});
