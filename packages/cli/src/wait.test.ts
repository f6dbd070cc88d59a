import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { connect } from "./client";
import { waitForRun, type Progress } from "./wait";

/** A stand-in for the lab's two endpoints the wait reads, answering a scripted sequence of the run's states. */
async function lab(states: { status: string; step: string; stepDetail?: string }[]) {
  let polls = 0;
  const server: Server = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url?.startsWith("/api/v1/runs/r1/samples")) {
      res.end(JSON.stringify([100, 200, 300].map((requests, t) => ({ t, requests, errors: 0, latencyMs: null }))));
      return;
    }
    const state = states[Math.min(polls++, states.length - 1)]!;
    res.end(JSON.stringify({ id: "r1", stepDetail: null, summary: null, error: null, ...state }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { lab: connect(`http://127.0.0.1:${(server.address() as { port: number }).port}`, undefined), polls: () => polls };
}
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

function progress(mode: Progress["mode"]) {
  let written = "";
  let now = 0;
  const p: Progress = { mode, write: (t) => void (written += t), now: () => (now += 1000), pollMs: 1 };
  return { p, written: () => written };
}

const STATES = [
  { status: "queued", step: "queued" },
  { status: "running", step: "provisioning" },
  { status: "running", step: "provisioning", stepDetail: "3 of 5 containers" },
  { status: "running", step: "running" },
  { status: "running", step: "running" },
  { status: "succeeded", step: "done" },
];

describe("waiting for a run", () => {
  it("returns the run as it ended; in a log, one line per step", async () => {
    const { lab: l } = await lab(STATES);
    const out = progress("lines");
    const run = await waitForRun(l, "r1", out.p, new AbortController().signal);
    expect(run).toMatchObject({ id: "r1", status: "succeeded" });
    expect(out.written()).toBe("[0:01] run r1: queued\n[0:02] run r1: provisioning\n[0:04] run r1: running\n");
  });

  it("on a terminal, one line redrawn with req/s of the latest seconds, cleared at the end", async () => {
    const { lab: l } = await lab(STATES);
    const out = progress("tty");
    await waitForRun(l, "r1", out.p, new AbortController().signal);
    const frames = out.written().split("\r\x1b[2K");
    expect(frames).toContain("run r1  provisioning (3 of 5 containers)  0:03");
    expect(frames).toContain("run r1  running  0:04  200 req/s");
    expect(frames.at(-1)).toBe("");
    expect(out.written()).not.toContain("\n");
  });

  it("writes nothing with --json", async () => {
    const { lab: l } = await lab(STATES);
    const out = progress("quiet");
    expect(await waitForRun(l, "r1", out.p, new AbortController().signal)).toMatchObject({ status: "succeeded" });
    expect(out.written()).toBe("");
  });

  it("stops at Ctrl-C and returns null: the run goes on", async () => {
    const { lab: l, polls } = await lab([{ status: "running", step: "running" }]);
    const ac = new AbortController();
    const out = progress("lines");
    const waiting = waitForRun(l, "r1", { ...out.p, pollMs: 50 }, ac.signal);
    await new Promise((resolve) => setTimeout(resolve, 120));
    ac.abort();
    expect(await waiting).toBeNull();
    // A request sent just before Ctrl-C may still arrive; after that, no poll in several intervals.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const seen = polls();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(polls()).toBe(seen);
  });
});
