import { readFileSync } from "node:fs";
import { createServer, Server } from "node:http";
import { AddressInfo } from "node:net";
import { K6EventReader } from "@scalelab/scenarios/loadgen";
import { afterEach, describe, expect, it } from "vitest";
import { sseEvents } from "./sse";

const fixture = readFileSync(new URL("../../../packages/scenarios/src/loadgen/k6/fixtures/k6-closed.sse", import.meta.url), "utf8");

let server: Server | undefined;
afterEach(() => server?.close());

/** Serves the captured k6 stream in 97-byte pieces and keeps the response open, like k6 does. */
function serveFixture(): Promise<{ url: string; closed: Promise<void> }> {
  let onClose!: () => void;
  const closed = new Promise<void>((r) => (onClose = r));
  server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    req.socket.on("close", onClose);
    for (let i = 0; i < fixture.length; i += 97) res.write(fixture.slice(i, i + 97));
  });
  return new Promise((resolve) =>
    server!.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/events`, closed })),
  );
}

describe("sseEvents", () => {
  it("parses k6's stream across chunk boundaries and hangs up when the reader stops", async () => {
    const { url, closed } = await serveFixture();
    const reader = new K6EventReader();
    const kinds: string[] = [];
    for await (const { event, data } of sseEvents(url, { signal: AbortSignal.timeout(5000), connectTimeoutMs: 1000 })) {
      const u = reader.push(event ?? "message", data);
      if (u) kinds.push(u.type);
      if (u?.type === "stop") break;
    }
    expect(kinds).toEqual(["start", "sample", "sample", "sample", "sample", "sample", "stop"]);
    expect(reader.summary(5)?.requests).toBe(3283);
    await closed;
  });

  it("retries until the connect timeout, asking before each retry", async () => {
    let retries = 0;
    const events = sseEvents("http://127.0.0.1:9/events", {
      signal: AbortSignal.timeout(5000),
      connectTimeoutMs: 300,
      retryDelayMs: 50,
      beforeRetry: async () => void retries++,
    });
    await expect(events.next()).rejects.toThrow(/could not connect to http:\/\/127.0.0.1:9\/events within 0.3 s/);
    expect(retries).toBeGreaterThan(1);
  });

  it("drops an attempt that gets no answer and connects again, instead of waiting on it", async () => {
    // The first request is accepted and never answered (as a connection whose SYN was lost waits); the second is k6's stream.
    let requests = 0;
    server = createServer((req, res) => {
      if (++requests === 1) return;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(fixture);
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
    let connected: { attempts: number; ms: number } | undefined;
    const kinds: string[] = [];
    const reader = new K6EventReader();
    for await (const { event, data } of sseEvents(url, {
      signal: AbortSignal.timeout(5000),
      connectTimeoutMs: 4000,
      attemptTimeoutMs: 300,
      retryDelayMs: 10,
      onConnected: (attempts, ms) => (connected = { attempts, ms }),
    })) {
      const u = reader.push(event ?? "message", data);
      if (u) kinds.push(u.type);
      if (u?.type === "stop") break;
    }
    expect(requests).toBe(2);
    expect(connected?.attempts).toBe(2);
    expect(connected?.ms).toBeGreaterThanOrEqual(300);
    expect(connected?.ms).toBeLessThan(2000);
    expect(kinds.at(-1)).toBe("stop");
    server.closeAllConnections();
  });

  it("gives up as soon as beforeRetry throws", async () => {
    const events = sseEvents("http://127.0.0.1:9/events", {
      signal: AbortSignal.timeout(5000),
      connectTimeoutMs: 5000,
      beforeRetry: async () => {
        throw new Error("k6 exited with code 107");
      },
    });
    await expect(events.next()).rejects.toThrow("k6 exited with code 107");
  });
});
