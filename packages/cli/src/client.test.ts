import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { apiError, authHeaders, call, connect, connectionReason, labUrl } from "./client";
import { EXIT, UsageError } from "./errors";

/** A port nothing listens on: one the system handed out and that was closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("the lab's address", () => {
  it("is --url, else SCALELAB_URL, else http://127.0.0.1:3000, without a trailing slash", () => {
    expect(labUrl("http://lab:8080/", { url: "http://env:1" })).toBe("http://lab:8080");
    expect(labUrl(undefined, { url: "https://lab.example.org/scalelab/" })).toBe("https://lab.example.org/scalelab");
    expect(labUrl(undefined, { url: undefined })).toBe("http://127.0.0.1:3000");
  });

  it("must be an http(s) URL, and the message says where it came from", () => {
    expect(() => labUrl("lab:3000x", { url: undefined })).toThrow(UsageError);
    expect(() => labUrl(undefined, { url: "ftp://lab" })).toThrow(/^SCALELAB_URL ftp:\/\/lab must be an http/);
    expect(() => labUrl("not a url", { url: undefined })).toThrow(/^--url not a url is not a URL/);
  });

  it("sends SCALELAB_TOKEN as a bearer token, and nothing without one", () => {
    expect(authHeaders("t0k")).toEqual({ authorization: "Bearer t0k" });
    expect(authHeaders(undefined)).toEqual({});
  });
});

describe("a lab that is not there", () => {
  it("is exit 3 with the address and the reason in words", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const lab = connect(url, undefined);
    const err = await call(lab, () => lab.api.GET("/host")).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: EXIT.usage, message: `cannot reach the lab at ${url} (set SCALELAB_URL): connection refused` });
  });

  it("reads the reason from the error's causes", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(connectionReason(new TypeError("fetch failed", { cause: refused }))).toBe("connection refused");
    expect(connectionReason(new TypeError("fetch failed", { cause: new AggregateError([refused]) }))).toBe("connection refused");
    expect(connectionReason(new TypeError("fetch failed", { cause: new Error("something else") }))).toBe("something else");
  });
});

describe("the lab's error answers", () => {
  it("prints invalid input as the lab's sentences, one field a line", () => {
    const err = apiError(400, {
      error: "invalid_input",
      message: "Input validation failed",
      issues: [
        { path: "topology.service.replicas", message: "replicas must be between 1 and 16" },
        { path: "workload.durationSeconds", message: "workload.durationSeconds must be between 5 and 3600" },
      ],
    });
    expect(err.message).toBe(
      [
        "the lab refused it (invalid_input):",
        "  topology.service.replicas: replicas must be between 1 and 16",
        "  workload.durationSeconds must be between 5 and 3600",
      ].join("\n"),
    );
    expect(err.code).toBe(EXIT.usage);
    expect(err.status).toBe(400);
  });

  it("prints other errors with their status and message, and what is not the lab's error shape as it came", () => {
    expect(apiError(404, { error: "not_found", message: "run x not found" }).message).toBe(
      "the lab answered 404 (not_found): run x not found",
    );
    expect(apiError(502, "Bad Gateway").message).toBe("the lab answered 502: Bad Gateway");
  });
});
